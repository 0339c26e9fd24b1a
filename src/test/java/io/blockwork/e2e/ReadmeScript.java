package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.nbd.ExternalTool;
import io.blockwork.support.TempDataDir;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A bash block of the README (or of a page under docs/), its text itself, run against a started
 * service. Only the addresses (the test's service listens on ports of its own) and the scratch
 * directory ({@code /tmp/}) are replaced.
 */
final class ReadmeScript {

    private ReadmeScript() {}

    /** The first {@code ```bash} block after {@code marker} in the README. */
    static String block(String marker) throws Exception {
        return block(Path.of("README.md"), marker);
    }

    /** The first {@code ```bash} block after {@code marker} in {@code page}. */
    static String block(Path page, String marker) throws Exception {
        String readme = Files.readString(page);
        int at = readme.indexOf(marker);
        assertThat(at).as("%s has the marker %s", page, marker).isNotNegative();
        int start = readme.indexOf("```bash\n", at) + "```bash\n".length();
        int end = readme.indexOf("\n```", start);
        return readme.substring(start, end + 1);
    }

    /** Runs {@code script} with {@code bash -eo pipefail}; returns its output after checking it succeeded. */
    static String run(String script, ServiceClient api, int nbdPort, Path scratch) throws Exception {
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
        assertThat(finished).as("the script finished within 5 minutes; output so far:\n%s", output).isTrue();
        assertThat(bash.exitValue()).as(output).isZero();
        return output;
    }
}
