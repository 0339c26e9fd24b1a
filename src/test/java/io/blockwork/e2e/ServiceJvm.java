package io.blockwork.e2e;

import com.google.errorprone.annotations.concurrent.GuardedBy;
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
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The java command line of a child JVM that runs the service, for the tests that need the service
 * in a process of its own ({@link KillableService}, {@link RunningService#startProcess},
 * {@link NodeProcess}). Each caller keeps its own heap, main class, arguments and way of finding
 * the port; what they share is here.
 *
 * <p>Start-up time dominates such tests, so the children share an ahead-of-time cache (JDK 25's
 * {@code -XX:AOTCache}: classes loaded and linked once, by a training run that starts the service
 * and exits) and compile with C1 only. The cache needs the classes in jars, so the main classes
 * are packed into one first; jar and cache live under {@code target/service-aot/<hash of their
 * inputs>} and are reused while the inputs are the same. {@link #prepared} does this once per test
 * JVM. If the JVM cannot make a cache, children start without one, only slower.
 *
 * <p>The JVM uses a cache only when the run's class path begins with the trained one (entries may
 * be appended: {@link #withTestClasses} appends the test classes, and {@code -Xlog:aot} still says
 * "Using AOT-linked classes: true") and its module options are the trained ones. So the options
 * below are the same for every child; the heap size, which the cache does not depend on, is each
 * caller's. There are no module options: with {@code --add-modules jdk.incubator.vector} or
 * {@code --enable-native-access} the training keeps no full module graph, and without it no
 * AOT-linked classes ("full module graph: disabled", "Using AOT-linked classes: false"), so the
 * children run without the Vector API and parity uses its scalar code.
 * ({@code ServiceProcess} does not start its JVM here: it measures the memory of the service as
 * users run it, with G1 and a pre-touched heap, and a cache would be part of what it measures.)
 */
final class ServiceJvm {

    /** C1 only and the serial collector start a short-lived service fastest, with the least CPU. */
    private static final List<String> OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    private static final String TRAINING_HEAP = "384m";

    private static final Object LOCK = new Object();
    @GuardedBy("LOCK")
    private static ServiceJvm prepared;

    private final List<String> classPath;
    /** Null if the JVM could not make one. */
    private final Path aotCache;

    private ServiceJvm(List<String> classPath, Path aotCache) {
        this.classPath = List.copyOf(classPath);
        this.aotCache = aotCache;
    }

    /**
     * The launcher of this test JVM: packs the main classes and makes the AOT cache on the first
     * call (unless an earlier run made them from the same inputs), returns the same one after.
     */
    static ServiceJvm prepared() {
        synchronized (LOCK) {
            if (prepared == null) {
                prepared = prepare();
            }
            return prepared;
        }
    }

    /**
     * The same launcher with the test classes (the directory holding this class) after the
     * trained class path, for a main class of the tests such as {@link ServiceMain}; the cache
     * stays valid, as the trained entries come first.
     */
    ServiceJvm withTestClasses() {
        String testClasses = testClassesDirectory().toString();
        if (classPath.contains(testClasses)) {
            return this;
        }
        List<String> cp = new ArrayList<>(classPath);
        cp.add(testClasses);
        return new ServiceJvm(cp, aotCache);
    }

    /** {@code java} with the shared options, a heap of at most {@code maxHeap} (e.g. "384m"), the cache and the class path. */
    List<String> command(String maxHeap, Class<?> mainClass, List<String> arguments) {
        return command(maxHeap, List.of(), mainClass, arguments);
    }

    private List<String> command(String maxHeap, List<String> extraOptions, Class<?> mainClass, List<String> arguments) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + maxHeap);
        cmd.addAll(OPTIONS);
        cmd.addAll(extraOptions);
        if (aotCache != null) {
            cmd.add("-XX:AOTCache=" + aotCache);
        }
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, classPath));
        cmd.add(mainClass.getName());
        cmd.addAll(arguments);
        return cmd;
    }

    private static ServiceJvm prepare() {
        List<String> jars = new ArrayList<>();
        Path classes = null;
        for (String entry : testClassPath()) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p)) {
                if (Files.exists(p.resolve(classFile(BlockworkApplication.class)))) {
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
                train(new ServiceJvm(classPath, null), aot, dir);
            }
            return new ServiceJvm(classPath, Files.exists(aot) ? aot : null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts the service once with the cache being recorded, and lets it exit when it has started. */
    private static void train(ServiceJvm untrained, Path aot, Path dir) throws IOException {
        List<String> arguments = new ArrayList<>();
        TempDataDir.properties(TempDataDir.newDataDir()).forEach((k, v) -> arguments.add("--" + k + "=" + v));
        arguments.add("--server.port=0");
        List<String> cmd = untrained.command(TRAINING_HEAP,
                List.of("-XX:AOTCacheOutput=" + aot, "-Dspring.context.exit=onRefresh"),
                BlockworkApplication.class, arguments);
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

    /** Surefire puts the test class path in a manifest-only jar; it also hands it over as this property. */
    private static List<String> testClassPath() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return List.of(cp.split(File.pathSeparator));
    }

    private static Path testClassesDirectory() {
        for (String entry : testClassPath()) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p) && Files.exists(p.resolve(classFile(ServiceJvm.class)))) {
                return p.toAbsolutePath();
            }
        }
        throw new IllegalStateException("the test classes are not on the test class path");
    }

    private static String classFile(Class<?> type) {
        return type.getName().replace('.', '/') + ".class";
    }

    private static String inputsHash(Path classes, List<String> jars) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((Runtime.version() + "\n" + OPTIONS + "\n").getBytes(StandardCharsets.UTF_8));
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
