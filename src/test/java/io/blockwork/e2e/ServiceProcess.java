package io.blockwork.e2e;

import static org.awaitility.Awaitility.await;

import io.blockwork.BlockworkApplication;
import io.blockwork.support.TempDataDir;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The service in a JVM of its own, as users run it (the test's classpath, a heap of its own),
 * so that what it costs the machine can be measured ({@link #rssBytes()}), apart from the test.
 * Ports are free ones, found in its log; {@link #close()} stops it (SIGTERM, then SIGKILL).
 *
 * <p>It does not start through {@link ServiceJvm}, whose AOT cache would start it faster: what
 * is measured here is the service as users run it (G1, a pre-touched heap, classes loaded from
 * the jars), and a cache would change that (its mapped archive in the RSS, classes not parsed
 * into metaspace, a collector other than the trained one). One start per test is not worth it.
 */
final class ServiceProcess implements AutoCloseable {

    private static final Pattern HTTP_PORT = Pattern.compile("Tomcat started on port (\\d+)");
    private static final Pattern NBD_PORT = Pattern.compile("NBD server listening on /[^:]*:(\\d+)");

    private final Process process;
    private final Path log;
    private final ServiceClient client;
    private final int nbdPort;

    private ServiceProcess(Process process, Path log, int httpPort, int nbdPort) {
        this.process = process;
        this.log = log;
        this.client = new ServiceClient("http://127.0.0.1:" + httpPort);
        this.nbdPort = nbdPort;
    }

    /**
     * Starts the service with a heap of {@code heap}, committed and touched at once (so that RSS
     * does not grow as the heap fills out), and the given settings; waits until it serves.
     */
    static ServiceProcess start(Path dataDir, String heap, Map<String, String> settings) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms" + heap, "-Xmx" + heap, "-XX:+AlwaysPreTouch", "-XX:+UseG1GC", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                BlockworkApplication.class.getName(), "--server.port=0"));
        TempDataDir.properties(dataDir).forEach((k, v) -> cmd.add("--" + k + "=" + v));
        settings.forEach((k, v) -> cmd.add("--" + k + "=" + v));
        Path log = dataDir.resolve("service.log");
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int[] ports = new int[2];
        try {
            await("the service in its own JVM to start").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        if (!p.isAlive()) {
                            throw new AssertionError("the service exited with " + p.exitValue() + ":\n" + Files.readString(log));
                        }
                        String text = Files.readString(log);
                        Matcher http = HTTP_PORT.matcher(text);
                        Matcher nbd = NBD_PORT.matcher(text);
                        if (http.find() && nbd.find()) {
                            ports[0] = Integer.parseInt(http.group(1));
                            ports[1] = Integer.parseInt(nbd.group(1));
                            return true;
                        }
                        return false;
                    });
        } catch (RuntimeException | Error e) {
            p.destroyForcibly();
            throw e;
        }
        return new ServiceProcess(p, log, ports[0], ports[1]);
    }

    ServiceClient client() {
        return client;
    }

    int nbdPort() {
        return nbdPort;
    }

    long pid() {
        return process.pid();
    }

    /** Resident set size now, from /proc. */
    long rssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("no VmRSS for " + process.pid());
    }

    String log() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() throws InterruptedException {
        client.close();
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
