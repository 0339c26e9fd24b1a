package io.blockwork.bench;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import io.blockwork.nbd.ExportTable;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.nbd.Json;
import io.blockwork.nbd.NbdExport;
import io.blockwork.nbd.NbdLimits;
import io.blockwork.nbd.NbdServer;
import io.blockwork.nbd.client.NbdClientConfig;
import io.blockwork.nbd.client.NbdRemoteDevice;
import io.blockwork.nbd.client.NbdUri;
import io.blockwork.support.FreePort;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Issue 21's benchmark ({@code -Dbench=remote}): what a remote disk costs. 4K random reads and
 * writes at iodepth 32 through the Java NBD client ({@code nbd} disk, loopback TCP) against a
 * local memory disk and against the server's own figure (fio's nbd engine on the same export),
 * for Blockwork's server and nbdkit's memory plugin; then raid1 of a local memory disk and an nbd
 * disk, with and without write-mostly on the remote leg. The load generator is Blockwork's
 * engine workload (fio-like), in this JVM; Blockwork's server runs in this JVM too, nbdkit and
 * fio are processes. Figures depend on the machine; the ratios are what to read.
 */
final class RemoteBenchmark {

    private static final long MIB = 1L << 20;
    private static final long SIZE = 64 * MIB;
    private static final int BS = 4096;
    private static final int DEPTH = 32;

    private RemoteBenchmark() {}

    static void run() {
        long seconds = Bench.seconds(3);
        Disk served = prefilled(Disk.memory("served", SIZE, DiskConfig.DEFAULT));
        ExportTable exports = new ExportTable();
        exports.add(NbdExport.of("served", served));
        NbdServer server = new NbdServer(new InetSocketAddress("127.0.0.1", 0), exports, NbdLimits.DEFAULT);
        server.start();
        int kitPort = FreePort.loopback();
        Process nbdkit = ExternalTool.startDaemon(log(), "nbdkit", "-f", "--exit-with-parent", "-i", "127.0.0.1",
                "-p", Integer.toString(kitPort), "memory", Long.toString(SIZE));
        try {
            String blockworkUri = "nbd://127.0.0.1:" + server.port() + "/served";
            String kitUri = "nbd://127.0.0.1:" + kitPort + "/";
            awaitServer(kitUri);
            Disk local = prefilled(Disk.memory("local", SIZE, DiskConfig.DEFAULT));
            try (NbdRemoteDevice toBlockwork = NbdRemoteDevice.connect("to-blockwork", config(blockworkUri));
                 NbdRemoteDevice toKit = NbdRemoteDevice.connect("to-nbdkit", config(kitUri))) {
                prefilled(toKit);
                Table t = new Table("remote: 4K random I/O at iodepth 32, 1 job, " + seconds
                        + " s per cell: IOPS of a local memory disk, of an nbd disk over loopback TCP (the Java client),"
                        + " and of fio's nbd engine on the same export (the server's own figure)",
                        "op", "local memory", "nbd disk -> Blockwork", "fio -> Blockwork", "nbd/fio (Blockwork)",
                        "nbd disk -> nbdkit", "fio -> nbdkit", "nbd/fio (nbdkit)", "nbd disk/local");
                for (RwMode op : List.of(RwMode.RANDREAD, RwMode.RANDWRITE)) {
                    double l = iops(local, op, seconds);
                    double nb = iops(toBlockwork, op, seconds);
                    double fb = fio(blockworkUri, op, seconds);
                    double nk = iops(toKit, op, seconds);
                    double fk = fio(kitUri, op, seconds);
                    t.row(op.name().toLowerCase(), round(l), round(nb), round(fb), ratio(nb, fb), round(nk), round(fk),
                            ratio(nk, fk), ratio(nb, l));
                }
                t.print();
                raid1(local, toBlockwork, seconds);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot connect to the benchmark's servers", e);
            }
        } finally {
            ExternalTool.stop(nbdkit);
            server.stop();
        }
    }

    /** raid1 of the local disk and the nbd disk, the remote leg write-mostly or not. */
    private static void raid1(Disk local, NbdRemoteDevice remote, long seconds) {
        Table t = new Table("remote: raid1 of a local memory disk and an nbd disk (Blockwork's server over loopback),"
                + " 4K random I/O at iodepth 32, 1 job, " + seconds + " s per cell",
                "op", "write-mostly off IOPS", "reads to remote, off", "write-mostly on IOPS", "reads to remote, on",
                "on/off");
        for (RwMode op : List.of(RwMode.RANDREAD, RwMode.RANDWRITE)) {
            double[] iops = new double[2];
            double[] remoteShare = new double[2];
            for (int on = 0; on < 2; on++) {
                MdArray md = MdArray.create(MdArraySpec.of("bench-r1", MdLevel.RAID1).withAssumeClean(true),
                        List.of(local, remote));
                try {
                    md.writeMostly(remote.name(), on == 1);
                    long remoteReads = remote.counters().reads();
                    long localReads = local.counters().reads();
                    iops[on] = iops(md, op, seconds);
                    long r = remote.counters().reads() - remoteReads;
                    long l = local.counters().reads() - localReads;
                    remoteShare[on] = r + l == 0 ? 0 : 100.0 * r / (r + l);
                } finally {
                    md.stop();
                }
            }
            t.row(op.name().toLowerCase(), round(iops[0]), percent(remoteShare[0]), round(iops[1]),
                    percent(remoteShare[1]), ratio(iops[1], iops[0]));
        }
        t.print();
    }

    private static double iops(BlockDevice device, RwMode op, long seconds) {
        // a short warm-up, then the measured run
        Workload.run(device, spec(op, 1));
        WorkloadResult r = Workload.run(device, spec(op, seconds));
        return op == RwMode.RANDREAD ? r.read().iops() : r.write().iops();
    }

    private static WorkloadSpec spec(RwMode op, long seconds) {
        return WorkloadSpec.builder(op, BS).jobs(1).ioDepth(DEPTH).size(SIZE).runtime(seconds * WorkloadSpec.SECOND)
                .build();
    }

    private static double fio(String uri, RwMode op, long seconds) {
        String rw = op == RwMode.RANDREAD ? "randread" : "randwrite";
        ExternalTool.Result r = ExternalTool.run(Duration.ofSeconds(seconds + 120), "fio", "--name=bench",
                "--ioengine=nbd", "--uri=" + uri, "--rw=" + rw, "--bs=4k", "--iodepth=" + DEPTH, "--numjobs=1",
                "--size=" + SIZE, "--time_based", "--runtime=" + seconds, "--ramp_time=1", "--norandommap",
                "--output-format=json").requireSuccess();
        return Json.number(Json.at(Json.parseObject(r.stdout()), "jobs", 0), op == RwMode.RANDREAD ? "read" : "write",
                "iops");
    }

    private static NbdClientConfig config(String uri) {
        return new NbdClientConfig(NbdUri.parse(uri), 1, NbdClientConfig.DEFAULT_TIMEOUT, 512);
    }

    private static <T extends BlockDevice> T prefilled(T d) {
        MemorySegment chunk = MemorySegment.ofArray(new byte[(int) MIB]);
        chunk.fill((byte) 0x5a);
        for (long off = 0; off < d.sizeBytes(); off += MIB) {
            SyncIo.write(d, off, chunk);
        }
        return d;
    }

    private static void awaitServer(String uri) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try (var _ = NbdRemoteDevice.connect("probe", config(uri))) {
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new UncheckedIOException("nbdkit did not start", e);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
            }
        }
    }

    private static long round(double v) {
        return Math.round(v);
    }

    private static String ratio(double a, double b) {
        return String.format("%.2f", a / b);
    }

    private static String percent(double p) {
        return String.format("%.0f%%", p);
    }

    private static Path log() {
        try {
            return Files.createTempFile("bench-nbdkit", ".log");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}
