package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.nbd.ExternalTool;
import io.blockwork.support.TempDataDir;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A bash block of a docs page (README.md or a page under docs/), its text itself, run against a
 * started service. The service's addresses are given as {@code API} and {@code NBD}, which every
 * walkthrough reads; literal default addresses and the scratch directory ({@code /tmp/}) are
 * replaced too, for blocks that name them.
 */
final class ReadmeScript {

    static final String MARKER = "<!-- walkthrough: ";
    private static final Pattern MARKER_LINE = Pattern.compile("(?m)^<!-- walkthrough: (.*?) -->$");

    private ReadmeScript() {}

    /** The first {@code ```bash} block after {@code marker} in README.md. */
    static String block(String marker) throws IOException {
        return block(Path.of("README.md"), marker);
    }

    /** The first {@code ```bash} block after {@code marker} in {@code page}. */
    static String block(Path page, String marker) throws IOException {
        String text = Files.readString(page);
        int at = text.indexOf(marker);
        assertThat(at).as("%s has the marker %s", page, marker).isNotNegative();
        int start = text.indexOf("```bash\n", at) + "```bash\n".length();
        int end = text.indexOf("\n```", start);
        return text.substring(start, end + 1);
    }

    /** A marked walkthrough: its page, its marker's text and its bash block. */
    record Walkthrough(Path page, String marker, String script) {
        @Override
        public String toString() {
            return page + ": " + marker;
        }
    }

    /** Every marked walkthrough of README.md and docs/, in file order. */
    static List<Walkthrough> walkthroughs() throws IOException {
        List<Walkthrough> out = new ArrayList<>();
        for (Path page : pages()) {
            // a marker is a line of its own; the same words inside prose (testing.md) are not one
            Matcher m = MARKER_LINE.matcher(Files.readString(page));
            while (m.find()) {
                out.add(new Walkthrough(page, m.group(1).strip(), block(page, m.group())));
            }
        }
        return out;
    }

    /** README.md and every page under docs/. */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> docs = Files.walk(Path.of("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /**
     * Runs {@code script} with {@code bash -eo pipefail}; returns its output after checking it
     * succeeded. What its {@code # output:} commands print is kept in {@code scratch} too
     * ({@link ShownOutput#printed}).
     */
    static String run(String script, ServiceClient api, int nbdPort, Path scratch) throws Exception {
        String runnable = script.replace("http://127.0.0.1:8080", api.baseUrl())
                .replace("127.0.0.1:10809", "127.0.0.1:" + nbdPort)
                .replace("/tmp/", scratch + "/");
        runnable = ShownOutput.keepingOutputs(runnable, scratch);
        Path file = scratch.resolve("walkthrough.sh");
        Files.writeString(file, runnable);

        Path log = scratch.resolve("walkthrough.log");
        ProcessBuilder pb = new ProcessBuilder(ExternalTool.require("bash"), "-eo", "pipefail", file.toString())
                .directory(scratch.toFile()).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        // the password as a user with a data dir of their own finds it (issue 30: the walkthroughs
        // read data/credentials.properties whatever the data dir): BLOCKWORK_DATADIR, as given to
        // the service, names a directory other than ./data holding the credentials file
        Path dataDir = Files.createDirectories(scratch.resolve("elsewhere"));
        Files.writeString(dataDir.resolve("credentials.properties"), "admin=" + TempDataDir.ADMIN_PASSWORD + "\n");
        pb.environment().remove("BLOCKWORK_ADMIN_PASSWORD");
        pb.environment().put("BLOCKWORK_DATADIR", dataDir.toString());
        pb.environment().put("API", api.baseUrl() + "/api/v1");
        pb.environment().put("NBD", "nbd://127.0.0.1:" + nbdPort);
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
