package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.support.TempDataDir;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9: the snapshots guide's walkthrough runs as written: a snapshot keeps the old data
 * while the volume is overwritten, qemu-img reads it from a read-only export, a second snapshot
 * is deleted, and a merge rolls the volume back at once.
 */
@Tag("real-client")
class SnapshotWalkthroughTest {

    @TempDir
    Path scratch;

    @Test
    void theReadmeSnapshotBlockRunsAsWritten() throws Exception {
        String script = ReadmeScript.block(Path.of("docs/guide/snapshots.md"), "<!-- walkthrough: volume snapshots");
        assertThat(script).contains("/snapshots/snap1/merge", "\"readOnly\":true", "\"$NBD/snap1\"");
        for (String tool : new String[] {"bash", "curl", "head", "cmp", "qemu-img"}) {
            ExternalTool.require(tool);
        }
        try (RunningService running = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = running.client();
            int nbdPort = JsonPath.read(api.get("/api/v1/system").body(), "$.nbd.port");
            String output = ReadmeScript.run(script, api, nbdPort, scratch);
            assertThat(output).contains("\"name\":\"snap1\",\"pool\":\"vg1\",\"volume\":\"vol1\"",
                    "\"state\":\"active\"", "\"exceptions\":256", "\"deviceKind\":\"snapshot\"",
                    "the snapshot has the old data", "\"state\":\"merging\"", "rolled back");
            // it cleaned up after itself, the merged snapshot included
            assertThat(api.get("/api/v1/pools").body()).isEqualTo("[]");
            assertThat(api.get("/api/v1/devices").body()).isEqualTo("[]");
        }
    }
}
