package io.blockwork.e2e;

import static org.awaitility.Awaitility.await;

import io.blockwork.BlockworkApplication;
import io.blockwork.support.TempDataDir;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The service as a process of its own ({@link ServiceJvm}: {@code java -XX:AOTCache=... -cp <main
 * classes, dependencies, test classes> io.blockwork.BlockworkApplication --key=value ...}), for
 * tests that need two real instances at once (two nodes on one database) or one that must fail to
 * start. Its HTTP port is a free one picked before it starts; its output goes to a log file in the
 * data dir; {@link #close} stops it the way a user's Ctrl-C does, then waits. (The
 * {@code ServiceProcess} beside it measures one instance's memory; this one starts nodes.)
 */
final class NodeProcess implements AutoCloseable {

    /** A bound, not a measure: a start took 214 s on the loaded shared machine (load 20 on 2 cores). */
    private static final Duration START = Duration.ofMinutes(5);

    private final Process process;
    private final Path log;
    private final ServiceClient client;

    private NodeProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.client = new ServiceClient("http://127.0.0.1:" + port);
    }

    /** Starts the service on {@code dataDir} with the test settings plus {@code extra}; does not wait. */
    static NodeProcess launch(Path dataDir, Map<String, Object> extra) {
        int port = freePort();
        Map<String, Object> props = new HashMap<>(TempDataDir.properties(dataDir));
        props.put("server.port", Integer.toString(port));
        props.putAll(extra);
        List<String> arguments = new ArrayList<>();
        props.forEach((k, v) -> arguments.add("--" + k + "=" + v));
        List<String> cmd = ServiceJvm.prepared().withTestClasses().command("384m", BlockworkApplication.class, arguments);
        Path log = dataDir.resolve("service.log");
        try {
            Files.createDirectories(dataDir);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            return new NodeProcess(p, log, port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + cmd, e);
        }
    }

    /** Starts the service and waits until it answers. */
    static NodeProcess start(Path dataDir, Map<String, Object> extra) {
        NodeProcess s = launch(dataDir, extra);
        try {
            await().atMost(START).pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() -> {
                if (!s.process.isAlive()) {
                    throw new AssertionError("the service exited with " + s.process.exitValue() + ":\n" + s.log());
                }
                return s.client.get("/api/v1/system").statusCode() == 200;
            });
        } catch (RuntimeException | AssertionError e) {
            s.close();
            throw new AssertionError("the service did not start:\n" + s.log(), e);
        }
        return s;
    }

    ServiceClient client() {
        return client;
    }

    /** Waits for the process to end by itself (a refused start) and returns its exit code. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the service is still running after " + timeout + ":\n" + log());
        }
        return process.exitValue();
    }

    String log() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    @Override
    public void close() {
        client.close();
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
