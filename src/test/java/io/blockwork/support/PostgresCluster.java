package io.blockwork.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL server for the tests: Debian's {@code postgresql} binaries, {@code initdb}
 * and {@code pg_ctl} in a temporary directory, listening on 127.0.0.1 and a free port, stopped and
 * deleted when the JVM exits. Started at most once per test JVM, on first use. PostgreSQL refuses
 * to run as root, so a root test run starts it as the {@code postgres} user ({@code runuser}).
 *
 * <p>Each caller gets a database of its own ({@link #database}), so test contexts stay as
 * independent as their H2 files would be.
 */
public final class PostgresCluster {

    public static final String USER = "blockwork";

    private static PostgresCluster shared;

    private final Path dir;
    private final int port;
    private final Path bin;
    private final boolean asPostgres;

    private PostgresCluster(Path dir, int port, Path bin, boolean asPostgres) {
        this.dir = dir;
        this.port = port;
        this.bin = bin;
        this.asPostgres = asPostgres;
    }

    /** The JVM's cluster, started on first use. */
    public static synchronized PostgresCluster shared() {
        if (shared == null) {
            shared = start();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "postgres-stop"));
        }
        return shared;
    }

    /** The JDBC URL of database {@code name}, created if it does not exist yet. */
    public synchronized String database(String name) {
        if (!name.matches("[a-z][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("not a plain database name: " + name);
        }
        try (Connection c = DriverManager.getConnection(url("postgres"), USER, "")) {
            try (var rs = c.createStatement().executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'")) {
                if (!rs.next()) {
                    c.createStatement().execute("CREATE DATABASE " + name);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on " + url("postgres"), e);
        }
        return url(name);
    }

    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    public int port() {
        return port;
    }

    private static PostgresCluster start() {
        Path bin = binaries();
        boolean root = "root".equals(System.getProperty("user.name"));
        try {
            Path dir = Files.createTempDirectory("blockwork-pg-");
            if (root) {
                UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
                Files.setOwner(dir, users.lookupPrincipalByName("postgres"));
            }
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            PostgresCluster cluster = new PostgresCluster(dir, port, bin, root);
            cluster.run(Duration.ofMinutes(2), "initdb", "-D", dir.resolve("data").toString(), "-U", USER,
                    "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions");
            // fsync off: a test server's data need not survive a power cut, and the machine is shared
            cluster.run(Duration.ofMinutes(2), "pg_ctl", "-D", dir.resolve("data").toString(), "-w", "-t", "100",
                    "-l", dir.resolve("server.log").toString(), "-o",
                    "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off"
                            + " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
                    "start");
            return cluster;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a PostgreSQL server for the tests", e);
        }
    }

    private void stop() {
        try {
            run(Duration.ofSeconds(60), "pg_ctl", "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "stop");
        } catch (RuntimeException e) {
            System.err.println("stopping the test PostgreSQL server: " + e.getMessage());
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("deleting " + dir + ": " + e);
        }
    }

    private void run(Duration timeout, String tool, String... args) {
        List<String> command = new ArrayList<>();
        if (asPostgres) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(tool).toString());
        command.addAll(List.of(args));
        try {
            Path log = Files.createTempFile("blockwork-pg-", ".log");
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                    .directory(dir.toFile()).start();
            boolean ended = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            String output = Files.readString(log);
            Files.delete(log);
            if (!ended) {
                p.destroyForcibly();
                throw new IllegalStateException(tool + " did not finish in " + timeout + ": " + output);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + tool, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + tool, e);
        }
    }

    /** Debian's PostgreSQL 15 or newer: the highest version under /usr/lib/postgresql. */
    private static Path binaries() {
        Path root = Path.of("/usr/lib/postgresql");
        try (Stream<Path> versions = Files.list(root)) {
            return versions.filter(v -> v.getFileName().toString().matches("\\d+"))
                    .filter(v -> Integer.parseInt(v.getFileName().toString()) >= 15)
                    .max(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString())))
                    .map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("initdb")))
                    .orElseThrow(() -> new IllegalStateException("no PostgreSQL 15+ under " + root
                            + ": install Debian's postgresql package (.ci/run does)"));
        } catch (IOException e) {
            throw new IllegalStateException("no PostgreSQL under " + root
                    + ": install Debian's postgresql package (.ci/run does)", e);
        }
    }
}
