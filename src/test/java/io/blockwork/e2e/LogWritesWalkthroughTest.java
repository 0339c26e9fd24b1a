package io.blockwork.e2e;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.support.TempDataDir;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13: the log-writes guide's walkthrough runs as written: a log-writes device over REST, a
 * FUA write, a mark, an overwrite and a flush logged in that order, a replay to the mark and one on
 * to the end, and the loop over every flush and FUA point.
 */
@Tag("real-client")
class LogWritesWalkthroughTest {

    @TempDir
    Path scratch;

    @Test
    void theGuidesWalkthroughRunsAsWritten() throws Exception {
        String script = ReadmeScript.block(Path.of("docs/guide/log-writes.md"), "<!-- walkthrough: log-writes");
        assertThat(script).contains("log-writes lwdata lwlog", "\"endMark\":\"after-a\"", "flags=flush,fua");
        for (String tool : new String[] {"bash", "curl", "head", "cmp", "grep", "cut", "sha256sum"}) {
            ExternalTool.require(tool);
        }
        try (RunningService running = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = running.client();
            int nbdPort = JsonPath.read(api.get("/api/v1/system").body(), "$.nbd.port");
            String output = ReadmeScript.run(script, api, nbdPort, scratch);
            assertThat(output).contains("0 131072 log-writes 4 ",
                    "\"entries\":4,\"writes\":2,\"flushes\":1,\"fuas\":1,\"discards\":0,\"marks\":[{\"entry\":1,\"name\":\"after-a\"}]",
                    "\"lastEntry\":1", "at the mark: the FUA write is there", "after the flush: the overwrite is there",
                    "power cut after entry 0: ", "power cut after entry 3: ");
        }
    }
}
