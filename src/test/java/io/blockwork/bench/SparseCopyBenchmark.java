package io.blockwork.bench;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.Raid10Layout;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.nbd.ExportTable;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.nbd.NbdExport;
import io.blockwork.nbd.NbdServer;
import io.blockwork.support.FreePort;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Issue 20 acceptance 2's benchmark: {@code qemu-img convert -O raw} and {@code nbdcopy} from an
 * 8 GiB export holding 64 MiB of data (64 random 1 MiB-aligned ranges of 1 MiB) to a new sparse
 * file in /dev/shm, from Blockwork's export of a memory disk, of a linear volume on raid10 (n2,
 * four memory disks) and from {@code nbdkit memory} loaded with the same bytes, all over TCP,
 * sources taking turns copy by copy. The clients learn the holes from BLOCK_STATUS
 * ({@code base:allocation}); without it they would read 8 GiB. Reports the median wall time of
 * each copy, the copy's allocated size (the holes stayed holes), and the server's CPU time.
 */
final class SparseCopyBenchmark {

    private static final long SIZE = 8L << 30;
    private static final int RANGES = 64;
    private static final long RANGE = 1L << 20;
    private static final int ROUNDS = 5;
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private SparseCopyBenchmark() {}

    /** One source export: where the clients find it and how much CPU its server has used. */
    private record Source(String name, String uri, LongSupplier cpuNanos) {}

    /** One copy: wall time, the server's CPU time, and the bytes the copy allocated. */
    private record Copy(double millis, double serverCpuMillis, long allocated) {}

    static void run() {
        int rounds = (int) Bench.rounds(ROUNDS);
        List<AutoCloseable> stops = new ArrayList<>();
        Map<String, List<Copy>> copies = new LinkedHashMap<>();
        Path out = Path.of("/dev/shm", "blockwork-sparsecopy-" + ProcessHandle.current().pid() + ".raw");
        try {
            List<Source> sources = start(stops);
            for (int round = 0; round < rounds; round++) {
                for (String tool : List.of("qemu-img convert", "nbdcopy")) {
                    for (Source s : sources) {
                        copies.computeIfAbsent(tool + "/" + s.name, k -> new ArrayList<>()).add(copy(tool, s, out));
                    }
                }
            }
        } finally {
            stops.reversed().forEach(SparseCopyBenchmark::close);
            try {
                Files.deleteIfExists(out);
            } catch (IOException e) {
                System.err.println("removing " + out + ": " + e);
            }
        }
        Table t = new Table("sparsecopy: 8 GiB export holding 64 MiB to a new sparse file in /dev/shm over TCP (median of "
                + rounds + " copies; CPU = server process time per copy; allocated = the copy's allocated MiB)",
                "tool", "source", "copy ms", "of nbdkit's time", "server CPU ms", "allocated MiB");
        copies.forEach((key, list) -> {
            String[] toolSource = key.split("/");
            Copy c = median(list);
            Copy kit = median(copies.get(toolSource[0] + "/nbdkit memory"));
            t.row(toolSource[0], toolSource[1], c.millis, c.millis / kit.millis, c.serverCpuMillis,
                    c.allocated / (double) (1 << 20));
        });
        t.print();
    }

    private static Copy median(List<Copy> runs) {
        List<Copy> sorted = new ArrayList<>(runs);
        sorted.sort((a, b) -> Double.compare(a.millis, b.millis));
        return sorted.get(sorted.size() / 2);
    }

    /** Starts Blockwork's server with both exports and nbdkit, and gives all three the same bytes. */
    private static List<Source> start(List<AutoCloseable> stops) {
        DmTestDevices devs = new DmTestDevices();
        Disk mem = devs.disk("sc-mem", SIZE);
        List<Disk> members = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            members.add(devs.disk("sc-r10-m" + i, SIZE / 2 + (1 << 20)));
        }
        MdArray r10 = MdArray.create(MdArraySpec.of("sc-r10", MdLevel.RAID10).withLayout(Raid10Layout.parse("n2"))
                .withChunk(512 << 10).withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED), members);
        stops.add(r10::stop);
        devs.add(r10);
        BlockDevice vol = devs.create("sc-vol", "0 " + (SIZE / 512) + " linear sc-r10 2048\n");
        fill(mem);
        fill(vol);

        int port = FreePort.loopback();
        NbdServer server = new NbdServer(new InetSocketAddress("127.0.0.1", port),
                new ExportTable().add(NbdExport.of("mem", mem)).add(NbdExport.of("vol", vol)));
        server.start();
        stops.add(server::stop);
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        String bw = "nbd://127.0.0.1:" + port + "/";

        int kitPort = FreePort.loopback();
        Process kit = ExternalTool.startDaemon(NbdBenchmark.log("nbdkit"), "nbdkit", "-f", "--exit-with-parent",
                "-i", "127.0.0.1", "-p", "" + kitPort, "memory", Long.toString(SIZE));
        stops.add(() -> ExternalTool.stop(kit));
        NbdBenchmark.waitForServer(null, kitPort, kit);
        String kitUri = "nbd://127.0.0.1:" + kitPort;
        // The same bytes into nbdkit: a copy of the memory disk's export, holes skipped.
        ExternalTool.run(TIMEOUT, "nbdcopy", "--destination-is-zero", bw + "mem", kitUri).requireSuccess();
        return List.of(new Source("blockwork memory disk", bw + "mem", os::getProcessCpuTime),
                new Source("blockwork volume on raid10", bw + "vol", os::getProcessCpuTime),
                new Source("nbdkit memory", kitUri, () -> NbdBenchmark.cpuNanos(kit.pid())));
    }

    /** Writes the 64 ranges of random data (the same seed, so the same bytes, on every device). */
    private static void fill(BlockDevice d) {
        Random r = new Random(20);
        byte[] data = new byte[(int) RANGE];
        long slots = SIZE / RANGE;
        Set<Long> used = new HashSet<>();
        while (used.size() < RANGES) {
            long slot = (long) (r.nextDouble() * slots);
            if (used.add(slot)) {
                r.nextBytes(data);
                SyncIo.write(d, slot * RANGE, MemorySegment.ofArray(data));
            }
        }
    }

    private static Copy copy(String tool, Source s, Path out) {
        try {
            Files.deleteIfExists(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String[] cmd = tool.equals("nbdcopy")
                ? new String[] {"nbdcopy", s.uri, out.toString()}
                : new String[] {"qemu-img", "convert", "-f", "raw", "-O", "raw", s.uri, out.toString()};
        long cpu0 = s.cpuNanos.getAsLong();
        long t0 = System.nanoTime();
        ExternalTool.run(TIMEOUT, cmd).requireSuccess();
        long t1 = System.nanoTime();
        long cpu = s.cpuNanos.getAsLong() - cpu0;
        long allocated = 512 * Long.parseLong(ExternalTool.run(TIMEOUT, "stat", "-c", "%b", out.toString())
                .requireSuccess().stdout().strip());
        return new Copy((t1 - t0) / 1e6, cpu / 1e6, allocated);
    }

    private static void close(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            System.err.println("stopping: " + e);
        }
    }
}
