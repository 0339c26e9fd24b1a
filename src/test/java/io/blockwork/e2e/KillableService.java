package io.blockwork.e2e;

import io.blockwork.BlockworkApplication;
import io.blockwork.support.TempDataDir;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The real service in a JVM of its own, so that a test can kill it as {@code kill -9} would
 * ({@link Process#destroyForcibly} is SIGKILL on Linux): nothing of it runs after that, no
 * shutdown hook, no close, no flush. {@link RunningService} keeps the service in the test's JVM,
 * which can only be stopped politely.
 *
 * <p>Start-up time dominates a suite that restarts the service after every kill, so the child
 * JVMs share an ahead-of-time cache (JDK 25's {@code -XX:AOTCache}: classes loaded and linked
 * once, by a training run that starts the service and exits) and compile with C1 only. The cache
 * needs the classes in jars, so the main classes are packed into one first; jar and cache live
 * under {@code target/service-aot/<hash of their inputs>} and are reused while the inputs are the
 * same. If the JVM cannot make a cache, children start without one, only slower.
 */
final class KillableService implements AutoCloseable {

    private static final Pattern PORT = Pattern.compile("Tomcat started on port (\\d+)");
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final List<String> JVM_OPTIONS = List.of("-Xmx384m", "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC");

    private final Process process;
    private final ServiceClient client;
    private final Path log;

    private KillableService(Process process, ServiceClient client, Path log) {
        this.process = process;
        this.client = client;
        this.log = log;
    }

    /** How child JVMs are started: their class path and, if one could be made, their AOT cache. */
    record Launcher(List<String> classPath, Path aotCache) {

        /** Packs the main classes and makes the AOT cache, unless an earlier run made them from the same inputs. */
        static Launcher prepare() {
            List<String> jars = new ArrayList<>();
            Path classes = null;
            for (String entry : testClassPath()) {
                Path p = Path.of(entry);
                if (Files.isDirectory(p)) {
                    if (Files.exists(p.resolve(BlockworkApplication.class.getName().replace('.', '/') + ".class"))) {
                        classes = p;
                    }
                } else if (entry.endsWith(".jar")) {
                    jars.add(entry);
                }
            }
            if (classes == null) {
                throw new IllegalStateException("the main classes are not on the test class path");
            }
            Path dir = Path.of("target", "service-aot", inputsHash(classes, jars)).toAbsolutePath();
            Path jar = dir.resolve("blockwork.jar");
            Path aot = dir.resolve("blockwork.aot");
            try {
                Files.createDirectories(dir);
                if (!Files.exists(jar)) {
                    pack(classes, jar);
                }
                List<String> classPath = new ArrayList<>();
                classPath.add(jar.toString());
                classPath.addAll(jars);
                if (!Files.exists(aot) && !Files.exists(dir.resolve("no-aot"))) {
                    train(classPath, aot, dir);
                }
                return new Launcher(List.copyOf(classPath), Files.exists(aot) ? aot : null);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private List<String> command(List<String> extraJvmOptions, Path dataDir, Map<String, String> properties) {
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(JVM_OPTIONS);
            cmd.addAll(extraJvmOptions);
            if (aotCache != null) {
                cmd.add("-XX:AOTCache=" + aotCache);
            }
            cmd.add("-cp");
            cmd.add(String.join(File.pathSeparator, classPath));
            cmd.add(BlockworkApplication.class.getName());
            TempDataDir.properties(dataDir).forEach((k, v) -> cmd.add("--" + k + "=" + v));
            cmd.add("--server.port=0");
            properties.forEach((k, v) -> cmd.add("--" + k + "=" + v));
            return cmd;
        }

        /** Starts the service once with the cache being recorded, and lets it exit when it has started. */
        private static void train(List<String> classPath, Path aot, Path dir) throws IOException {
            Path data = TempDataDir.newDataDir();
            Launcher untrained = new Launcher(classPath, null);
            List<String> cmd = untrained.command(List.of("-XX:AOTCacheOutput=" + aot,
                    "-Dspring.context.exit=onRefresh"), data, Map.of());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("training.log").toFile()).start();
            try {
                if (p.waitFor() != 0 || !Files.exists(aot)) {
                    Files.deleteIfExists(aot);
                    Files.writeString(dir.resolve("no-aot"), "the training run failed; see training.log\n");
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while making the AOT cache", e);
            }
        }
    }

    /** Starts the service on {@code dataDir}; returns once it answers HTTP. Its output goes to {@code log}. */
    static KillableService start(Launcher launcher, Path dataDir, Path log) {
        return start(launcher, dataDir, log, Map.of());
    }

    static KillableService start(Launcher launcher, Path dataDir, Path log, Map<String, String> properties) {
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            Process p = new ProcessBuilder(launcher.command(List.of(), dataDir, properties))
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

    /** Surefire puts the test class path in a manifest-only jar; it also hands it over as this property. */
    private static List<String> testClassPath() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return List.of(cp.split(File.pathSeparator));
    }

    private static String inputsHash(Path classes, List<String> jars) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((Runtime.version() + "\n" + JVM_OPTIONS + "\n").getBytes(StandardCharsets.UTF_8));
            for (String jar : jars) {
                sha.update((jar + "\n").getBytes(StandardCharsets.UTF_8));
            }
            try (Stream<Path> files = Files.walk(classes)) {
                for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                    sha.update(classes.relativize(f).toString().getBytes(StandardCharsets.UTF_8));
                    sha.update(Files.readAllBytes(f));
                }
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void pack(Path classes, Path jar) throws IOException {
        Path partial = jar.resolveSibling(jar.getFileName() + ".partial");
        try (OutputStream out = Files.newOutputStream(partial); JarOutputStream j = new JarOutputStream(out);
             Stream<Path> files = Files.walk(classes)) {
            // directories too: class path scanning looks packages up as resources ("io/blockwork/")
            for (Path f : files.filter(f -> !f.equals(classes)).sorted().toList()) {
                String name = classes.relativize(f).toString().replace(File.separatorChar, '/');
                boolean dir = Files.isDirectory(f);
                j.putNextEntry(new JarEntry(dir ? name + "/" : name));
                if (!dir) {
                    Files.copy(f, j);
                }
                j.closeEntry();
            }
        }
        Files.move(partial, jar);
    }
}
