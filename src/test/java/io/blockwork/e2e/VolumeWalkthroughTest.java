package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.support.TempDataDir;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 7, acceptance 5: the README's provisioning walkthrough, its text itself, run by bash
 * against a started service: disks, an array, a pool, a volume, data written, the volume grown,
 * the data read back identical, an export, and qemu-img seeing the new size. Only the addresses
 * (the test's service listens on ports of its own) and the scratch directory are replaced.
 */
class VolumeWalkthroughTest {

    private static final String MARKER = "<!-- walkthrough: pools and volumes";

    private static final String ARRAY_CREATE =
            "-d '{\"name\":\"md0\",\"level\":\"raid10\",\"members\":[\"d1\",\"d2\",\"d3\",\"d4\"]}' \"$API/arrays\"";

    @TempDir
    Path scratch;

    static String walkthrough() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        int marker = readme.indexOf(MARKER);
        assertThat(marker).as("README has the walkthrough marker").isNotNegative();
        int start = readme.indexOf("```bash\n", marker) + "```bash\n".length();
        int end = readme.indexOf("\n```", start);
        return readme.substring(start, end + 1);
    }

    @Test
    void theReadmeWalkthroughRunsAsWritten() throws Exception {
        String script = walkthrough();
        assertThat(script).contains(ARRAY_CREATE, "-X DELETE \"$API/arrays/md0\"", "http://127.0.0.1:8080/api/v1",
                "nbd://127.0.0.1:10809/vol0");
        for (String tool : new String[] {"bash", "curl", "head", "cmp", "qemu-img"}) {
            ExternalTool.require(tool);
        }

        try (RunningService running = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = running.client();
            int nbdPort = JsonPath.read(api.get("/api/v1/system").body(), "$.nbd.port");
            String runnable = script.replace("http://127.0.0.1:8080", api.baseUrl())
                    .replace("127.0.0.1:10809", "127.0.0.1:" + nbdPort)
                    .replace("/tmp/", scratch + "/");
            Path file = scratch.resolve("walkthrough.sh");
            Files.writeString(file, runnable);

            Path log = scratch.resolve("walkthrough.log");
            ProcessBuilder pb = new ProcessBuilder(ExternalTool.require("bash"), "-eo", "pipefail", file.toString())
                    .directory(scratch.toFile()).redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.environment().put("BLOCKWORK_ADMIN_PASSWORD", TempDataDir.ADMIN_PASSWORD);
            Process bash = pb.start();
            boolean finished = bash.waitFor(5, TimeUnit.MINUTES);
            if (!finished) {
                bash.descendants().forEach(ProcessHandle::destroyForcibly);
                bash.destroyForcibly();
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(finished).as("the walkthrough finished within 5 minutes; output so far:\n%s", output).isTrue();
            assertThat(bash.exitValue()).as(output).isZero();
            assertThat(output).contains("read back identical", "\"name\":\"vol0\",\"pool\":\"vg0\"",
                    "\"sizeBytes\":167772160", "virtual size: 160 MiB (167772160 bytes)");

            // the clean-up at its end left nothing behind
            assertThat(api.get("/api/v1/pools").body()).isEqualTo("[]");
            assertThat(api.get("/api/v1/exports").body()).isEqualTo("[]");
            assertThat(api.get("/api/v1/devices").body()).isEqualTo("[]");
        }
    }
}
