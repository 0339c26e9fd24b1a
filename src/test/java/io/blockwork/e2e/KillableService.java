package io.blockwork.e2e;

import io.blockwork.BlockworkApplication;
import io.blockwork.support.TempDataDir;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real service in a JVM of its own, so that a test can kill it as {@code kill -9} would
 * ({@link Process#destroyForcibly} is SIGKILL on Linux): nothing of it runs after that, no
 * shutdown hook, no close, no flush. {@link RunningService} keeps the service in the test's JVM,
 * which can only be stopped politely.
 *
 * <p>Start-up time dominates a suite that restarts the service after every kill; {@link ServiceJvm}
 * starts the child with the AOT cache the e2e tests' child JVMs share (made once per test JVM).
 * The child's class path is the main classes and the dependencies, without the test classes; the
 * port is read from its log.
 */
final class KillableService implements AutoCloseable {

    private static final Pattern PORT = Pattern.compile("Tomcat started on port (\\d+)");
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final String HEAP = "384m";

    private final Process process;
    private final ServiceClient client;
    private final Path log;

    private KillableService(Process process, ServiceClient client, Path log) {
        this.process = process;
        this.client = client;
        this.log = log;
    }

    /** Starts the service on {@code dataDir}; returns once it answers HTTP. Its output goes to {@code log}. */
    static KillableService start(Path dataDir, Path log) {
        return start(dataDir, log, Map.of());
    }

    static KillableService start(Path dataDir, Path log, Map<String, String> properties) {
        List<String> arguments = new ArrayList<>();
        TempDataDir.properties(dataDir).forEach((k, v) -> arguments.add("--" + k + "=" + v));
        arguments.add("--server.port=0");
        properties.forEach((k, v) -> arguments.add("--" + k + "=" + v));
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            Process p = new ProcessBuilder(ServiceJvm.prepared().command(HEAP, BlockworkApplication.class, arguments))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                Matcher m = PORT.matcher(Files.readString(log, StandardCharsets.UTF_8));
                if (m.find()) {
                    return new KillableService(p, new ServiceClient("http://127.0.0.1:" + m.group(1)), log);
                }
                if (!p.isAlive()) {
                    throw new IllegalStateException("the service exited with " + p.exitValue() + " while starting:\n"
                            + tail(log));
                }
                p.waitFor(50, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
            p.destroyForcibly();
            throw new IllegalStateException("the service did not start within " + START_TIMEOUT + ":\n" + tail(log));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    ServiceClient client() {
        return client;
    }

    Path log() {
        return log;
    }

    /** SIGKILL, and wait until the process is gone. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        client.close();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    /** The last lines of a log, for failure messages. */
    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
