package io.blockwork.bench;

import com.sun.management.OperatingSystemMXBean;
import io.blockwork.engine.dm.snapshot.SnapshotLocking;
import io.blockwork.engine.dm.snapshot.StoreType;
import io.blockwork.engine.seeds.SeedRun;
import io.blockwork.engine.seeds.SnapshotLockingSeed;
import io.blockwork.engine.seeds.SnapshotLockingSeed.Target;
import io.blockwork.engine.workload.WorkloadResult;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Issue 9's benchmark, seed 004 ({@link SnapshotLockingSeed}, which the service's experiment for
 * seed 004 runs too): the device-mapper test suite's
 * {@code fio_{origin,snapshot}_randwrite_{throughput,latency}_{N,P}} on null disks (null_blk):
 * an origin with one snapshot of 4 KiB chunks, 4K random writes by 1, 2, 4 and 8 workers each on
 * its own region ({@code size = origin / N}, {@code offset_increment = size}), iodepth 32 for
 * throughput and 1 for latency, to the origin (every first write to a chunk copies it out) or to
 * the snapshot (a whole-chunk write is its own exception). Each cell builds fresh devices, so the
 * snapshot starts empty as the suite's zeroed COW; {@code global} and {@code fine} run in
 * alternating order, several rounds per cell, and each column is its median run. Tables are the seed's: rows are workers, columns the two strategies and their
 * ratio (IOPS fine/global; latency global/fine, so above 1 means {@code fine} is better), then
 * the latency tails of both (p99 and p99.9 from the workload's HdrHistogram); throughput tables
 * also show the process's CPU time per write (every thread: workers, copier threads, completions),
 * which a busy shared machine disturbs far less than IOPS. Every table ends with the CPUs'
 * cache-line hand-off time measured just before each column's run ({@link CoreHandoff}): the host
 * of a 2-vCPU machine moves its vCPUs between a close and a far placement, which changes what
 * {@code fine} costs and not what {@code global} does.
 */
final class SnapshotBenchmark {

    private static final int[] WORKERS = {1, 2, 4, 8};
    private static final SnapshotLockingSeed SEED = new SnapshotLockingSeed();
    /** Rounds per cell (BENCH_ROUNDS): odd, so the median is one run. */
    private static final int ROUNDS = (int) Math.max(1, Bench.rounds(3)) | 1;

    /** CPU time of the whole process per cell. */
    private static final OperatingSystemMXBean PROCESS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private SnapshotBenchmark() {}

    /**
     * One measured run: the workload, the process's CPU time while it ran (device set-up
     * included), and the CPUs' cache-line hand-off time just before it ({@link CoreHandoff}).
     */
    private record Run(WorkloadResult result, long cpuNanos, double handoffNanos) {
        double cpuMicrosPerWrite() {
            long writes = result.write().ios();
            return writes == 0 ? 0 : cpuNanos / 1000.0 / writes;
        }
    }

    static void run() {
        long seconds = Bench.seconds(2);
        // BENCH_TABLES=origin (or snapshot, N, P, throughput, latency, or a table's full name) runs
        // only the tables whose name contains every comma-separated word, for a quicker look.
        String only = System.getenv().getOrDefault("BENCH_TABLES", "");
        measure(Target.ORIGIN, StoreType.TRANSIENT, 32, 1, SnapshotLocking.Kind.FINE); // warm-up
        for (StoreType store : new StoreType[] {StoreType.TRANSIENT, StoreType.PERSISTENT}) {
            for (Target target : Target.values()) {
                for (int ioDepth : new int[] {32, 1}) {
                    String name = name(target, store, ioDepth);
                    if (java.util.Arrays.stream(only.split(",")).allMatch(w -> w.isBlank() || name.contains(w.strip()))) {
                        table(name, target, store, ioDepth, seconds).print();
                    }
                }
            }
        }
    }

    private static String name(Target target, StoreType store, int ioDepth) {
        return "fio_" + target.label() + "_randwrite_" + (ioDepth > 1 ? "throughput" : "latency") + "_" + store.code();
    }

    private static Table table(String name, Target target, StoreType store, int ioDepth, long seconds) {
        boolean throughput = ioDepth > 1;
        String unit = throughput ? "IOPS" : "latency (usec)";
        Table t = new Table("snapshot: " + name + ": 4K random writes to the " + target.label()
                + ", iodepth " + ioDepth + ", null disks, 4 KiB chunks, " + seconds + " s a cell, median of "
                + ROUNDS + " rounds in alternating order",
                "# of workers", unit + " global", unit + " fine", throughput ? "fine/global" : "global/fine",
                "p99 us global", "p99 us fine", "p99.9 us global", "p99.9 us fine", "CPU us/write global", "CPU us/write fine",
                "hand-off ns global", "hand-off ns fine");
        for (int workers : WORKERS) {
            // Rounds alternate the order (global, fine / fine, global ...) so that a burst of other
            // work on a shared machine falls on both strategies alike; each column is its median run.
            List<Run> gs = new ArrayList<>();
            List<Run> fs = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                boolean globalFirst = round % 2 == 0;
                SnapshotLocking.Kind first = globalFirst ? SnapshotLocking.Kind.GLOBAL : SnapshotLocking.Kind.FINE;
                SnapshotLocking.Kind second = globalFirst ? SnapshotLocking.Kind.FINE : SnapshotLocking.Kind.GLOBAL;
                Run a = measure(target, store, ioDepth, workers, seconds, first);
                Run b = measure(target, store, ioDepth, workers, seconds, second);
                (globalFirst ? gs : fs).add(a);
                (globalFirst ? fs : gs).add(b);
            }
            Run gr = median(gs, throughput);
            Run fr = median(fs, throughput);
            WorkloadResult g = gr.result();
            WorkloadResult f = fr.result();
            var gt = g.write().latency();
            var ft = f.write().latency();
            // The tails (HdrHistogram percentiles of submit-to-completion): where a shared lock or
            // the copier thread makes some writes wait, the mean hides it and p99/p99.9 show it.
            if (throughput) {
                t.row(workers, g.write().iops(), f.write().iops(), f.write().iops() / g.write().iops(),
                        gt.p99Nanos() / 1000.0, ft.p99Nanos() / 1000.0, gt.p999Nanos() / 1000.0, ft.p999Nanos() / 1000.0,
                        gr.cpuMicrosPerWrite(), fr.cpuMicrosPerWrite(), gr.handoffNanos(), fr.handoffNanos());
            } else {
                double gl = gt.meanNanos() / 1000.0;
                double fl = ft.meanNanos() / 1000.0;
                t.row(workers, gl, fl, gl / fl,
                        gt.p99Nanos() / 1000.0, ft.p99Nanos() / 1000.0, gt.p999Nanos() / 1000.0, ft.p999Nanos() / 1000.0,
                        gr.cpuMicrosPerWrite(), fr.cpuMicrosPerWrite(), gr.handoffNanos(), fr.handoffNanos());
            }
        }
        return t;
    }

    /** The median run by IOPS (throughput) or mean latency. */
    private static Run median(List<Run> runs, boolean throughput) {
        List<Run> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(r -> throughput ? r.result().write().iops() : r.result().write().latency().meanNanos()));
        return sorted.get(sorted.size() / 2);
    }

    private static Run measure(Target target, StoreType store, int ioDepth, int workers, long seconds,
                               SnapshotLocking.Kind locking) {
        double handoff = CoreHandoff.nanos();
        long before = PROCESS.getProcessCpuTime();
        WorkloadResult r = SEED.measure(target, store, ioDepth, workers, seconds, locking, SeedRun.quiet());
        return new Run(r, PROCESS.getProcessCpuTime() - before, handoff);
    }

    private static void measure(Target target, StoreType store, int ioDepth, long seconds, SnapshotLocking.Kind locking) {
        measure(target, store, ioDepth, 8, seconds, locking);
    }
}
