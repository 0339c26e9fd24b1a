package io.blockwork.bench;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.ParityThreads;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.engine.md.parity.ParityKernel;
import io.blockwork.engine.md.parity.ParitySelection;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 18's benchmarks: {@code mvn -B -ntp test-compile exec:exec -Dbench=raid5}.
 * (a) Parity MB/s on one core, vector vs scalar, raid5 XOR and raid6 P+Q over 4 data blocks of
 *     64 KiB, beside the memcpy bound (copying the same 256 KiB) measured in the same run.
 * (b) Full-stripe sequential writes: raid5 over 5 memory disks vs raid0 over 4 (64 KiB chunks,
 *     one row of 256 KiB per write), raid5 with parity on the stripe workers and on the submitter.
 * (c) 4K random writes (rmw on raid5 over 5), raid0 over 4 beside it.
 * (d) 4K random reads of raid5 over 5, healthy and with one member failed.
 * In (b)-(d) each pair of arrays gets a warm-up round each (not counted), then three rounds
 * taking turns; each table shows the best round's rate (wall clock) and the rate per CPU second
 * of the job threads (and the stripe workers) over all rounds, with both ratios. The per-CPU figure is the one to trust on
 * a loaded machine: memory disks complete inline, so the whole I/O path runs on the job threads.
 */
final class Raid5Benchmark {

    private static final long MIB = 1L << 20;
    private static final int CHUNK = 64 * 1024;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Measured rounds per array in (b)-(d), after one warm-up round each. */
    private static final int ROUNDS = 3;

    private Raid5Benchmark() {}

    static void run() {
        parity();
        arrays();
    }

    /* ---- (a) ---- */

    static void parity() {
        long nanos = Bench.seconds(1) * 1_000_000_000L;
        Table t = new Table("raid5 (a) parity per core (MB/s of data per CPU second): 4 data blocks of 64 KiB, memcpy of the same bytes",
                "code", "operation", "MB/s", "of memcpy");
        double memcpy = memcpy(nanos);
        t.row("MemorySegment.copy", "memcpy 256 KiB", memcpy, 1.0);
        for (ParityKernel k : ParitySelection.candidates()) {
            double xor = ParitySelection.measure(k, false, nanos / 2, nanos);
            double pq = ParitySelection.measure(k, true, nanos / 2, nanos);
            t.row(k.name(), "raid5 XOR (P)", xor, xor / memcpy);
            t.row(k.name(), "raid6 P+Q", pq, pq / memcpy);
        }
        ParitySelection.Selection s = ParitySelection.awaitSelection();
        t.row("chosen at start-up", "xor " + s.xorAlgorithm() + ", raid6 " + s.raid6Algorithm(), s.xorMBps(), s.xorMBps() / memcpy);
        t.print();
    }

    private static double memcpy(long nanos) {
        MemorySegment src = MemorySegment.ofArray(new byte[4 * 64 * 1024]);
        MemorySegment dst = MemorySegment.ofArray(new byte[4 * 64 * 1024]);
        long end = ParitySelection.cpuNanos() + nanos / 2;
        while (ParitySelection.cpuNanos() < end) {
            MemorySegment.copy(src, 0, dst, 0, src.byteSize());
        }
        // Per second of this thread's CPU, as the parity figures are.
        long start = ParitySelection.cpuNanos();
        long rounds = 0;
        end = start + nanos;
        while (ParitySelection.cpuNanos() < end) {
            for (int i = 0; i < 8; i++) {
                MemorySegment.copy(src, 0, dst, 0, src.byteSize());
            }
            rounds += 8;
        }
        return rounds * (double) src.byteSize() / 1e6 / ((ParitySelection.cpuNanos() - start) / 1e9);
    }

    /* ---- (b), (c), (d) ---- */

    static void arrays() {
        // Arrays run the scalar code until the start-up selection has chosen: never measure that.
        ParitySelection.awaitSelection();
        long seconds = Bench.seconds(3);
        List<Disk> five = disks("r5-", 5, 64 * MIB);
        List<Disk> four = disks("r0-", 4, 64 * MIB);
        MdArray raid5 = raid5("bench-r5", five);
        MdArray raid0 = MdArray.create(MdArraySpec.of("bench-r0", MdLevel.RAID0).withChunk(CHUNK), four);
        prefill(raid5);
        prefill(raid0);

        int row = 4 * CHUNK;
        long fullBefore = raid5.parityStatus().fullStripeWrites();
        long rmwBefore = raid5.parityStatus().rmwStripes();
        long rcwBefore = raid5.parityStatus().rcwStripes();
        // The same raid5 with each parity strategy: a round switches it before it runs.
        List<Side> seq = compare(List.of(
                new Case(raid5, () -> raid5.parityThreads(ParityThreads.WORKERS)),
                new Case(raid5, () -> raid5.parityThreads(ParityThreads.SUBMITTER)),
                new Case(raid0, () -> {})), RwMode.WRITE, row, 1, seconds);
        Side workers = seq.get(0);
        Side submitter = seq.get(1);
        Side r0 = seq.get(2);
        Table b = new Table("raid5 (b) full-stripe sequential writes, 64 KiB chunks, 256 KiB writes (one row), 1 job",
                "array", "parity on", "MB/s", "of raid0", "MB per CPU s", "of raid0");
        b.row("raid0 over 4", "", r0.mbps(row), 1.0, r0.perCpu() * row / 1e6, 1.0);
        b.row("raid5 over 5", "stripe workers", workers.mbps(row), workers.iops / r0.iops,
                workers.perCpu() * row / 1e6, workers.perCpu() / r0.perCpu());
        b.row("raid5 over 5", "submitter", submitter.mbps(row), submitter.iops / r0.iops,
                submitter.perCpu() * row / 1e6, submitter.perCpu() / r0.perCpu());
        b.print();
        System.out.printf("raid5 (b): %d full-stripe writes, %d rmw, %d rcw; CPU per CPU second counts the job thread and"
                        + " the stripe workers%n", raid5.parityStatus().fullStripeWrites() - fullBefore,
                raid5.parityStatus().rmwStripes() - rmwBefore, raid5.parityStatus().rcwStripes() - rcwBefore);
        raid5.parityThreads(ParityThreads.WORKERS);

        rmwBefore = raid5.parityStatus().rmwStripes();
        Pair rand = compare(raid5, raid0, RwMode.RANDWRITE, 4096, 2, seconds);
        Table c = new Table("raid5 (c) 4K random writes, iodepth 1, 2 jobs",
                "array", "IOPS", "of raid0", "IOPS per CPU s", "of raid0", "rmw stripes");
        c.row("raid0 over 4", rand.b.iops, 1.0, rand.b.perCpu(), 1.0, "");
        c.row("raid5 over 5 (rmw)", rand.a.iops, rand.wallRatio(), rand.a.perCpu(), rand.cpuRatio(),
                raid5.parityStatus().rmwStripes() - rmwBefore);
        c.print();
        raid5.stop();
        raid0.stop();

        // Healthy and degraded side by side (a failure cannot be undone between rounds).
        List<Disk> healthyDisks = disks("r5h-", 5, 32 * MIB);
        List<Disk> degradedDisks = disks("r5d-", 5, 32 * MIB);
        MdArray healthy = raid5("bench-r5h", healthyDisks);
        MdArray degraded = raid5("bench-r5d", degradedDisks);
        prefill(healthy);
        prefill(degraded);
        degraded.fail(degradedDisks.get(2).name());
        Pair reads = compare(degraded, healthy, RwMode.RANDREAD, 4096, 2, seconds);
        Table d = new Table("raid5 (d) 4K random reads, iodepth 1, 2 jobs: healthy vs one member failed",
                "array", "IOPS", "of healthy", "IOPS per CPU s", "of healthy", "p99 us");
        d.row("raid5 over 5, healthy", reads.b.iops, 1.0, reads.b.perCpu(), 1.0, reads.b.p99Micros);
        d.row("raid5 over 5, 1 failed", reads.a.iops, reads.wallRatio(), reads.a.perCpu(), reads.cpuRatio(), reads.a.p99Micros);
        d.print();
        healthy.stop();
        degraded.stop();
    }

    private static MdArray raid5(String name, List<Disk> disks) {
        return MdArray.create(MdArraySpec.of(name, MdLevel.RAID5).withChunk(CHUNK).withAssumeClean(true)
                .withSpeed(SpeedLimits.UNLIMITED), disks);
    }

    /**
     * One array's figures over the measured rounds: the best round's IOPS (wall clock: what a
     * quiet machine shows), and I/Os per CPU second of the job threads over all rounds. With
     * memory disks every step of the I/O path runs inline on the job threads, so the second
     * figure is the path's cost, and other engineers' load on a shared machine barely moves it.
     */
    private static final class Side {
        double iops;
        double p99Micros;
        long ios;
        long cpuNanos;

        double mbps(int bs) {
            return iops * bs / 1e6;
        }

        double perCpu() {
            return cpuNanos == 0 ? 0 : ios / (cpuNanos / 1e9);
        }
    }

    private record Pair(Side a, Side b) {
        double wallRatio() {
            return a.iops / b.iops;
        }

        double cpuRatio() {
            return a.perCpu() / b.perCpu();
        }
    }

    /** A device to measure and what to set on it before each of its rounds. */
    private record Case(BlockDevice device, Runnable before) {}

    private static Pair compare(BlockDevice a, BlockDevice b, RwMode mode, int bs, int jobs, long seconds) {
        List<Side> sides = compare(List.of(new Case(a, () -> {}), new Case(b, () -> {})), mode, bs, jobs, seconds);
        return new Pair(sides.get(0), sides.get(1));
    }

    /**
     * The cases against each other in one run: a warm-up round of each (not counted, so the JIT
     * has compiled every path), then {@link #ROUNDS} rounds taking turns, so a burst of other
     * work on the machine falls on all of them.
     */
    private static List<Side> compare(List<Case> cases, RwMode mode, int bs, int jobs, long seconds) {
        for (Case c : cases) {
            c.before().run();
            run(c.device(), mode, bs, jobs, seconds, null);
        }
        List<Side> sides = new ArrayList<>();
        cases.forEach(c -> sides.add(new Side()));
        for (int i = 0; i < ROUNDS; i++) {
            for (int k = 0; k < cases.size(); k++) {
                cases.get(k).before().run();
                run(cases.get(k).device(), mode, bs, jobs, seconds, sides.get(k));
            }
        }
        return sides;
    }

    /** CPU time of the stripe workers so far: work a job hands them is the job's cost too. */
    private static long workerCpuNanos() {
        long sum = 0;
        for (var info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(ParityThreads.WORKER_THREAD_PREFIX)) {
                sum += Math.max(0, THREADS.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    private static void run(BlockDevice d, RwMode mode, int bs, int jobs, long seconds, Side into) {
        AtomicLong cpu = new AtomicLong();
        ThreadFactory counting = job -> Thread.ofPlatform().name("raid5-bench-job").unstarted(() -> {
            job.run();
            cpu.addAndGet(THREADS.getCurrentThreadCpuTime());
        });
        WorkloadSpec spec = WorkloadSpec.builder(mode, bs).jobs(jobs).ioDepth(1).runtime(seconds * WorkloadSpec.SECOND).build();
        long workersBefore = workerCpuNanos();
        WorkloadResult r = new Workload(d, spec, counting).execute(s -> {});
        cpu.addAndGet(workerCpuNanos() - workersBefore);
        if (into == null) {
            return;
        }
        WorkloadResult.OpResult op = mode.name().contains("READ") ? r.read() : r.write();
        if (op.iops() > into.iops) {
            into.iops = op.iops();
            into.p99Micros = op.latency().p99Nanos() / 1000.0;
        }
        into.ios += op.ios();
        into.cpuNanos += cpu.get();
    }

    private static List<Disk> disks(String prefix, int n, long bytes) {
        List<Disk> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Disk.memory(prefix + i, bytes, DiskConfig.DEFAULT));
        }
        return out;
    }

    private static void prefill(BlockDevice d) {
        MemorySegment chunk = MemorySegment.ofArray(new byte[(int) MIB]);
        chunk.fill((byte) 0x3c);
        for (long off = 0; off + MIB <= d.sizeBytes(); off += MIB) {
            SyncIo.write(d, off, chunk);
        }
    }
}
