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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The real service on a random port and a given data dir, started and stopped by the test itself
 * (a restart needs two lifetimes on one data dir, which a cached test context cannot give).
 *
 * <p>{@link #start} runs it in this JVM and {@link #close} shuts it down cleanly.
 * {@link #startProcess} runs it in a child JVM, which {@link #kill} ends with SIGKILL, as
 * {@code kill -9} would: nothing of the service runs after it, not even a shutdown hook.
 */
public final class RunningService implements AutoCloseable {

    /** A child JVM starts in seconds on a quiet machine and in minutes on a loaded one. */
    private static final Duration START = Duration.ofSeconds(300);

    private final ConfigurableApplicationContext context;
    private final Process process;
    private final ServiceClient client;

    private RunningService(ConfigurableApplicationContext context, Process process, int port) {
        this.context = context;
        this.process = process;
        this.client = new ServiceClient("http://127.0.0.1:" + port);
    }

    public static RunningService start(Path dataDir) {
        return start(dataDir, Map.of());
    }

    /** With settings of its own on top of the test defaults, e.g. TLS for the NBD server or a fixed NBD port a restart keeps. */
    static RunningService start(Path dataDir, Map<String, ?> settings) {
        return start(dataDir, settings, new Class<?>[0]);
    }

    /**
     * As {@link #start(Path)}, with {@code extraSources} (plain classes with {@code @Bean}
     * methods, not components, so that no other test's scan finds them) added to the context.
     */
    public static RunningService start(Path dataDir, Class<?>... extraSources) {
        return start(dataDir, Map.of(), extraSources);
    }

    static RunningService start(Path dataDir, Map<String, ?> settings, Class<?>... extraSources) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(BlockworkApplication.class)
                .sources(extraSources).run(arguments(dataDir, settings));
        return new RunningService(context, null, ((WebServerApplicationContext) context).getWebServer().getPort());
    }

    /**
     * The service in a child JVM ({@link ServiceJvm}: the shared AOT cache, the test classes
     * appended, a modest heap), which writes its port to a file beside {@code dataDir}; its output
     * goes to {@code dataDir}/../.
     */
    static RunningService startProcess(Path dataDir) {
        try {
            Path portFile = dataDir.resolveSibling(dataDir.getFileName() + ".port");
            Files.deleteIfExists(portFile);
            List<String> args = new ArrayList<>(List.of(portFile.toString()));
            args.addAll(List.of(arguments(dataDir, Map.of())));
            // ServiceMain is a test class: the test classes go after the class path the AOT cache was trained on
            List<String> cmd = ServiceJvm.prepared().withTestClasses().command("512m", ServiceMain.class, args);
            Path log = dataDir.resolveSibling(dataDir.getFileName() + ".log");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            await().atMost(START).until(() -> Files.exists(portFile) || !p.isAlive());
            if (!p.isAlive()) {
                throw new AssertionError("the service exited with " + p.exitValue() + " before it was up; see " + log);
            }
            return new RunningService(null, p, Integer.parseInt(Files.readString(portFile).trim()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String[] arguments(Path dataDir, Map<String, ?> settings) {
        Map<String, Object> props = new HashMap<>(TempDataDir.properties(dataDir));
        props.put("server.port", "0");
        props.putAll(settings);
        // as command-line arguments: they outrank application.yml, as a user's would
        return props.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new);
    }

    public ServiceClient client() {
        return client;
    }

    /** A bean of the running service, for tests that look at its state directly. */
    public <T> T bean(Class<T> type) {
        if (context == null) {
            throw new IllegalStateException("a service in a child process has no beans here");
        }
        return context.getBean(type);
    }

    /** kill -9 of a service started with {@link #startProcess}; returns once the process is gone. */
    void kill() {
        if (process == null) {
            throw new IllegalStateException("only a service in a child process can be killed");
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("the killed service did not exit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        client.close();
        if (context != null) {
            context.close();
        } else if (process.isAlive()) {
            kill();
        }
    }
}
