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
 * Issue 7, acceptance 5: the pools guide's provisioning walkthrough, its text itself, run by bash
 * against a started service: disks, an array, a pool, a volume, data written, the volume grown,
 * the data read back identical, an export, and qemu-img seeing the new size. Only the addresses
 * (the test's service listens on ports of its own) and the scratch directory are replaced.
 */
@Tag("real-client")
class VolumeWalkthroughTest {

    private static final String MARKER = "<!-- walkthrough: pools and volumes";

    private static final String ARRAY_CREATE =
            "-d '{\"name\":\"md0\",\"level\":\"raid10\",\"members\":[\"d1\",\"d2\",\"d3\",\"d4\"]}' \"$API/arrays\"";

    @TempDir
    Path scratch;

    static String walkthrough() throws Exception {
        return ReadmeScript.block(Path.of("docs/guide/pools-and-volumes.md"), MARKER);
    }

    @Test
    void theReadmeWalkthroughRunsAsWritten() throws Exception {
        String script = walkthrough();
        assertThat(script).contains(ARRAY_CREATE, "-X DELETE \"$API/arrays/md0\"", "API=${API:-http://127.0.0.1:8080/api/v1}",
                "\"$NBD/vol0\"").doesNotContain("-o /dev/null");
        for (String tool : new String[] {"bash", "curl", "head", "cmp", "qemu-img"}) {
            ExternalTool.require(tool);
        }

        try (RunningService running = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = running.client();
            int nbdPort = JsonPath.read(api.get("/api/v1/system").body(), "$.nbd.port");
            String output = ReadmeScript.run(script, api, nbdPort, scratch);
            assertThat(output).contains("read back identical", "\"name\":\"vol0\",\"pool\":\"vg0\"",
                    "\"sizeBytes\":167772160", "virtual size: 160 MiB (167772160 bytes)");

            // the clean-up at its end left nothing behind
            assertThat(api.get("/api/v1/pools").body()).isEqualTo("[]");
            assertThat(api.get("/api/v1/exports").body()).isEqualTo("[]");
            assertThat(api.get("/api/v1/devices").body()).isEqualTo("[]");
        }
    }
}
