package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14: every walkthrough of README.md and docs/ runs as written, one after another against
 * one service, and leaves nothing behind (no device, pool or export), so each is independent of
 * the others. Walkthroughs whose marker names a test of their own (VolumeWalkthroughTest,
 * SnapshotWalkthroughTest) are run there, with their own checks, and skipped here.
 */
@Tag("real-client")
class DocsWalkthroughsTest {

    private static RunningService running;
    private static int nbdPort;

    @BeforeAll
    static void start() throws Exception {
        running = RunningService.start(TempDataDir.newDataDir());
        nbdPort = JsonPath.read(running.client().get("/api/v1/system").body(), "$.nbd.port");
    }

    @AfterAll
    static void stop() {
        running.close();
    }

    @Test
    void everyWalkthroughRunsAndCleansUpAfterItself(@TempDir Path scratch) throws Exception {
        for (String tool : new String[] {"bash", "curl", "head", "cmp", "sed", "qemu-img", "nbdinfo", "nbdcopy"}) {
            ExternalTool.require(tool);
        }
        Map<String, String> all = ReadmeScript.walkthroughs();
        assertThat(all.keySet()).as("walkthroughs found").hasSizeGreaterThanOrEqualTo(7);
        int ran = 0;
        for (Map.Entry<String, String> w : all.entrySet()) {
            assertThat(w.getValue()).as(w.getKey()).contains("API=${API:-", "PASS=").doesNotContain("-o /dev/null");
            if (w.getKey().contains("Test runs this block")) {
                continue;
            }
            Path dir = Files.createDirectories(scratch.resolve("w" + ran++));
            ServiceClient api = running.client();
            ReadmeScript.run(w.getValue(), api, nbdPort, dir);
            for (String list : new String[] {"/api/v1/devices", "/api/v1/pools", "/api/v1/exports", "/api/v1/dm/devices",
                    "/api/v1/arrays"}) {
                assertThat(api.get(list).body()).as("%s after %s", list, w.getKey()).isEqualTo("[]");
            }
        }
        assertThat(ran).as("walkthroughs run here").isGreaterThanOrEqualTo(5);
    }
}
