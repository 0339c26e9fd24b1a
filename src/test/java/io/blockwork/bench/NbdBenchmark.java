package io.blockwork.bench;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.ExportTable;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.nbd.NbdExport;
import io.blockwork.nbd.NbdServer;
import io.blockwork.support.FreePort;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Issue 6's benchmark: fio's nbd engine, 4K random reads and writes at depth 32 with 1 and 2
 * jobs (one connection each), against Blockwork's export of a memory disk, {@code nbdkit memory}
 * and {@code qemu-nbd} serving a raw file in /dev/shm, all in the same run, each over TCP (free
 * loopback ports) and over a Unix-domain socket (issue 20): a server per transport, since nbdkit
 * and qemu-nbd listen on one or the other. Ratios compare the same transport with the same. Each
 * server is prefilled (so reads return data, not holes) and warmed up before it is measured.
 * fio's own CPU use is printed beside each server's: a client at a full core per job cannot go
 * faster whatever the server does.
 */
final class NbdBenchmark {

    private static final long SIZE = 256L << 20;
    private static final String EXPORT = "bench";
    private static final int ROUNDS = 3;

    private NbdBenchmark() {}

    /** One server under test: where fio finds it and how to shut it down. */
    private record Target(String name, String uri, LongSupplier cpuNanos, AutoCloseable stop) {}

    /** One fio run: IOPS, p99 completion latency, the server's CPU time per I/O, and fio's (see {@link Fio.Run}). */
    private record Cell(double iops, double p99Micros, double cpuMicrosPerIo, double fioCpuPercent, double fioSwitchesPerIo) {}

    /** The run with the median IOPS: on a shared machine single runs swing, the median less. */
    private static Cell median(List<Cell> runs) {
        List<Cell> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(Cell::iops));
        return sorted.get(sorted.size() / 2);
    }

    private static final List<String> TRANSPORTS = List.of("tcp", "unix");

    static void run() {
        long seconds = Bench.seconds(2);
        List<String> servers = List.of("blockwork", "nbdkit", "qemu-nbd");
        Map<String, Target> targets = new LinkedHashMap<>();
        Map<String, Map<String, List<Cell>>> runs = new LinkedHashMap<>();
        try {
            for (String transport : TRANSPORTS) {
                for (String server : servers) {
                    Target t = start(server, transport.equals("unix"));
                    targets.put(server + "/" + transport, t);
                    fio(t.uri, "write", "1M", 1, 1, 0, false); // prefill, so reads return data, not holes
                    fio(t.uri, "randread", "4k", 32, 1, 2, true); // warm-up
                }
            }
            servers.forEach(server -> runs.put(server, new LinkedHashMap<>()));
            // Servers take turns cell by cell, so a change in the machine's load hits them alike;
            // each cell runs ROUNDS times and reports its median run.
            for (int round = 0; round < ROUNDS; round++) {
                for (String transport : TRANSPORTS) {
                    for (String op : List.of("randread", "randwrite")) {
                        for (int jobs = 1; jobs <= 2; jobs++) {
                            for (String server : servers) {
                                Cell c = measure(targets.get(server + "/" + transport), op, jobs, seconds);
                                runs.get(server).computeIfAbsent(op + "/" + jobs + "/" + transport,
                                        k -> new ArrayList<>()).add(c);
                            }
                        }
                    }
                }
            }
        } finally {
            targets.values().forEach(NbdBenchmark::stop);
        }
        Map<String, Map<String, Cell>> results = new LinkedHashMap<>();
        runs.forEach((server, cells) -> {
            Map<String, Cell> m = new LinkedHashMap<>();
            cells.forEach((key, list) -> m.put(key, median(list)));
            results.put(server, m);
        });
        Table t = new Table("nbd: fio --ioengine=nbd, 4K random I/O at iodepth 32 (" + seconds
                + " s runs, median of " + ROUNDS + "; one connection per job; CPU = server process time per I/O)",
                "transport", "op", "jobs", "blockwork IOPS", "nbdkit IOPS", "qemu-nbd IOPS", "blockwork/nbdkit",
                "blockwork/qemu-nbd", "blockwork p99 us", "nbdkit p99 us", "qemu-nbd p99 us",
                "blockwork CPU us/IO", "nbdkit CPU us/IO", "qemu-nbd CPU us/IO",
                "fio CPU % B / k", "fio switches/IO B / k");
        for (String key : results.get("blockwork").keySet()) {
            Cell b = results.get("blockwork").get(key);
            Cell k = results.get("nbdkit").get(key);
            Cell q = results.get("qemu-nbd").get(key);
            String[] opJobs = key.split("/");
            t.row(opJobs[2], opJobs[0], Integer.parseInt(opJobs[1]), b.iops, k.iops, q.iops, b.iops / k.iops, b.iops / q.iops,
                    b.p99Micros, k.p99Micros, q.p99Micros, b.cpuMicrosPerIo, k.cpuMicrosPerIo, q.cpuMicrosPerIo,
                    String.format("%.0f / %.0f", b.fioCpuPercent, k.fioCpuPercent),
                    String.format("%.2f / %.2f", b.fioSwitchesPerIo, k.fioSwitchesPerIo));
        }
        t.print();
    }

    private static void stop(Target t) {
        try {
            t.stop.close();
        } catch (Exception e) {
            System.err.println("stopping " + t.name + ": " + e);
        }
    }

    /** Starts one server on a free loopback port, or on a Unix socket in the temporary directory. */
    private static Target start(String server, boolean unix) {
        int port = FreePort.loopback();
        Path socket = Path.of(System.getProperty("java.io.tmpdir"), "bw-bench-" + server + "-" + port + ".sock");
        String uri = unix ? "nbd+unix:///" + EXPORT + "?socket=" + socket : "nbd://127.0.0.1:" + port + "/" + EXPORT;
        // Where to listen, as each server's command line says it.
        List<String> kitListen = unix ? List.of("-U", socket.toString()) : List.of("-i", "127.0.0.1", "-p", "" + port);
        List<String> qemuListen = unix ? List.of("-k", socket.toString()) : List.of("-b", "127.0.0.1", "-p", "" + port);
        switch (server) {
            case "blockwork" -> {
                Disk disk = Disk.memory("bench-nbd", SIZE, DiskConfig.DEFAULT);
                NbdServer s = new NbdServer(unix ? UnixDomainSocketAddress.of(socket) : new InetSocketAddress("127.0.0.1", port),
                        new ExportTable().add(NbdExport.of(EXPORT, disk)));
                s.start();
                var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
                return new Target(server, uri, os::getProcessCpuTime, s::stop);
            }
            case "nbdkit" -> {
                List<String> cmd = new ArrayList<>(List.of("nbdkit", "-f", "--exit-with-parent"));
                cmd.addAll(kitListen);
                cmd.addAll(List.of("memory", Long.toString(SIZE)));
                Process p = ExternalTool.startDaemon(log(server), cmd.toArray(String[]::new));
                waitForServer(unix ? socket : null, port, p);
                return new Target(server, uri, () -> cpuNanos(p.pid()), () -> ExternalTool.stop(p));
            }
            case "qemu-nbd" -> {
                Path file = Path.of("/dev/shm", "blockwork-bench-" + port + ".raw");
                try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                    f.setLength(SIZE);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                List<String> cmd = new ArrayList<>(List.of("qemu-nbd", "-f", "raw"));
                cmd.addAll(qemuListen);
                cmd.addAll(List.of("-x", EXPORT, "-t", "-e", "8", file.toString()));
                Process p = ExternalTool.startDaemon(log(server), cmd.toArray(String[]::new));
                waitForServer(unix ? socket : null, port, p);
                return new Target(server, uri, () -> cpuNanos(p.pid()), () -> {
                    ExternalTool.stop(p);
                    Files.deleteIfExists(file);
                });
            }
            default -> throw new IllegalArgumentException(server);
        }
    }

    /** CPU time a process has used so far, from /proc (user + system, clock ticks of 10 ms). */
    static long cpuNanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Cell measure(Target t, String rw, int jobs, long seconds) {
        long cpu0 = t.cpuNanos.getAsLong();
        Cell c = fio(t.uri, rw, "4k", 32, jobs, seconds, true);
        long cpu = t.cpuNanos.getAsLong() - cpu0;
        return new Cell(c.iops, c.p99Micros, cpu / 1000.0 / (c.iops * seconds), c.fioCpuPercent, c.fioSwitchesPerIo);
    }

    /** Runs one fio job group; returns its IOPS and p99 completion latency. */
    private static Cell fio(String uri, String rw, String bs, int depth, int jobs, long seconds, boolean random) {
        Fio.Run r = Fio.run(uri, SIZE, rw, bs, depth, jobs, seconds, random);
        return new Cell(r.iops(), r.p99Micros(), Double.NaN, r.clientCpuPercent(), r.clientSwitchesPerIo());
    }

    static Path log(String server) {
        try {
            return Files.createTempFile("bench-" + server, ".log");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Gives a server that is not listening yet 50 ms to start, failing at once if it exits instead. */
    private static void awaitExitBriefly(Process p, int port) {
        try {
            if (p.waitFor(50, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("server exited with " + p.exitValue() + " before listening on " + port);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits (up to 20 s) until a freshly started server accepts connections on its socket or port. */
    static void waitForServer(Path socket, int port, Process p) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (socket != null) {
                    try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                        ch.connect(UnixDomainSocketAddress.of(socket));
                    }
                } else {
                    new Socket("127.0.0.1", port).close();
                }
                return;
            } catch (IOException notYet) {
                awaitExitBriefly(p, port);
            }
        }
        ExternalTool.stop(p);
        throw new IllegalStateException("server did not listen on " + (socket != null ? socket : port) + " within 20 s");
    }
}
