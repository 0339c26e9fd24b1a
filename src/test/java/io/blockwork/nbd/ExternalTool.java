package io.blockwork.nbd;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real NBD clients and servers the tests and benchmark drive (qemu-img, nbdinfo,
 * nbdcopy, fio, nbdkit, qemu-nbd), always with a timeout. A missing binary fails loudly with the
 * package to install; nothing is skipped.
 */
public final class ExternalTool {

    /** Debian packages that provide the binaries; CI installs them. */
    public static final String PACKAGES = "qemu-utils libnbd-bin fio nbdkit mdadm openssl";
    /** Where administration tools (mdadm) live, which a user's PATH may leave out. */
    private static final List<String> SBIN = List.of("/usr/sbin", "/sbin");

    private ExternalTool() {}

    public record Result(List<String> command, int exitCode, String stdout, String stderr) {
        public Result requireSuccess() {
            if (exitCode != 0) {
                throw new AssertionError(String.join(" ", command) + " exited with " + exitCode
                        + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr);
            }
            return this;
        }
    }

    /** The absolute path of a binary on PATH, or an AssertionError naming the package to install. */
    public static String require(String binary) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)));
        dirs.addAll(SBIN);
        for (String dir : dirs) {
            Path p = Path.of(dir, binary);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        throw new AssertionError("required binary '" + binary + "' is not installed; run: apt-get install -y "
                + PACKAGES);
    }

    /** Runs a command to completion; kills it and fails if it outlives {@code timeout}. */
    public static Result run(Duration timeout, String... command) {
        List<String> cmd = new ArrayList<>(List.of(command));
        cmd.set(0, require(cmd.getFirst()));
        Process p = start(cmd);
        CompletableFuture<String> out = drain(p.getInputStream());
        CompletableFuture<String> err = drain(p.getErrorStream());
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(String.join(" ", cmd) + " did not finish within " + timeout
                        + "\nstdout so far:\n" + out.getNow("") + "\nstderr so far:\n" + err.getNow(""));
            }
            return new Result(cmd, p.exitValue(), out.join(), err.join());
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + cmd, e);
        }
    }

    /** Starts a long-running process (a server); the caller stops it with {@link #stop}. */
    public static Process startDaemon(Path log, String... command) {
        List<String> cmd = new ArrayList<>(List.of(command));
        cmd.set(0, require(cmd.getFirst()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        try {
            return pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + cmd, e);
        }
    }

    public static void stop(Process p) {
        p.destroy();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static Process start(List<String> cmd) {
        try {
            return new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + cmd, e);
        }
    }

    private static CompletableFuture<String> drain(InputStream s) {
        return CompletableFuture.supplyAsync(() -> {
            try (s) {
                return new String(s.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "<" + e + ">";
            }
        }, r -> Thread.ofVirtual().start(r));
    }
}
