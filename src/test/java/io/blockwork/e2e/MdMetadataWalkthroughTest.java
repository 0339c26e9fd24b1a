package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.support.TempDataDir;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Tag;

/**
 * Issue 17: the md metadata guide's walkthrough runs as written: a member's superblock is
 * examined, a member taken out and re-added through the bitmap copies only what was written
 * meanwhile, and the deleted array is assembled again from its members with its data.
 */
@Tag("real-client")
class MdMetadataWalkthroughTest {

    @TempDir
    Path scratch;

    @Test
    void theGuidesWalkthroughRunsAsWritten() throws Exception {
        String script = ReadmeScript.block(Path.of("docs", "guide", "md-metadata.md"), "<!-- walkthrough: md metadata");
        assertThat(script).contains("/examine", "/re-add", "arrays/assemble");
        for (String tool : new String[] {"bash", "curl", "head", "cmp", "grep"}) {
            ExternalTool.require(tool);
        }
        try (RunningService running = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = running.client();
            int nbdPort = JsonPath.read(api.get("/api/v1/system").body(), "$.nbd.port");
            String output = ReadmeScript.run(script, api, nbdPort, scratch);
            assertThat(output).contains("\"device\":\"w2\",\"found\":true,\"usable\":true",
                    "\"raidLevel\":\"raid1\"", "\"deviceRole\":\"Active device 1\"", "\"checksumCorrect\":true",
                    "\"recoveredBytes\":2097152", "\"outcome\":\"in_sync\"", "assembled with its data");
            assertThat(api.get("/api/v1/devices").body()).as("the walkthrough leaves nothing behind").isEqualTo("[]");
        }
    }
}
