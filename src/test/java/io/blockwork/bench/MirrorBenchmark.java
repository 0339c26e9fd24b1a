package io.blockwork.bench;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.seeds.MirrorDispatchSeed;
import io.blockwork.engine.seeds.SeedRun;
import io.blockwork.engine.workload.WorkloadResult;
import java.util.List;

/**
 * Issue 8's benchmark, seed 003 ({@link MirrorDispatchSeed}, which the service's experiment for
 * seed 003 runs too): 8 KiB synchronous (FUA) random writes at queue depth 1, with 1, 2 and 4
 * writers, through a two-leg dm mirror (core log, in sync) under dispatch strategies
 * {@code explicit} and {@code timer}, against md raid1 on identical disks, in one run. A disk log
 * mirror under {@code explicit} is measured too, for what the log costs.
 *
 * <p>The disks are writeback memory disks modelling a drive with a small service time: every
 * write takes 200 us (FUA is native, so a FUA write costs the same) and a cache flush 1 ms.
 * Without a service time both arrays would be measuring only thread hand-offs; with it, the
 * comparison is about the seed's question: does a synchronous write through the mirror wait for
 * anything md raid1's does not.
 *
 * <p>With 4 writers the legs' plugged queues reach the old block layer's unplug threshold of 4
 * requests ({@code unplug_thresh}) whenever every writer waits, which releases them without the
 * timer: the 2-writer row shows the slowdown persists below it.
 *
 * <p>Each cell runs three passes (BENCH_ROUNDS), the devices in order and then in reverse by
 * turns, and each device's median pass counts, so a burst of other work on the shared machine
 * falls on all devices alike and one lucky or unlucky pass does not decide. The last column is
 * the share of writes the mirror's submitting thread sent to the legs itself (the fast path for
 * regions already recorded dirty, {@code explicit} only).
 */
final class MirrorBenchmark {

    /** Passes per cell (BENCH_ROUNDS), odd so the median is one pass. */
    private static final int PASSES = (int) Math.max(1, Bench.rounds(3)) | 1;

    private MirrorBenchmark() {}

    static void run() {
        long seconds = Bench.seconds(2);
        MirrorDispatchSeed seed = new MirrorDispatchSeed();
        SeedRun quiet = SeedRun.quiet();
        DiskConfig disks = MirrorDispatchSeed.diskConfig();
        List<MirrorDispatchSeed.Device> devices = List.of(
                seed.raid1(disks, quiet),
                seed.mirror("dm mirror", "core 2 1024 nosync", BatchDispatch.Kind.EXPLICIT, disks, quiet),
                seed.mirror("dm mirror", "core 2 1024 nosync", BatchDispatch.Kind.TIMER, disks, quiet),
                seed.mirror("dm mirror, disk log", "disk 3 log 1024 nosync", BatchDispatch.Kind.EXPLICIT, disks, quiet));
        Table t = new Table("mirror (seed 003): 8K FUA randwrite, iodepth 1, 2 legs on writeback memory disks ("
                + MirrorDispatchSeed.WRITE_US + " us write, " + MirrorDispatchSeed.FLUSH_US + " us flush)",
                "device", "dispatch", "writers", "IOPS", "mean us", "p99 us", "p99.9 us", "mean vs md raid1",
                "timer unplugs/write", "direct writes %");
        for (int writers : new int[] {1, 2, 4}) {
            List<MirrorDispatchSeed.Best> best = seed.medianOfPasses(devices, writers, seconds, PASSES, quiet);
            double md = best.get(0).result().write().latency().meanNanos();
            for (int i = 0; i < devices.size(); i++) {
                MirrorDispatchSeed.Device d = devices.get(i);
                WorkloadResult r = best.get(i).result();
                t.row(d.label(), d.dispatch(), writers, r.write().iops(), r.write().latency().meanNanos() / 1000.0,
                        r.write().latency().p99Nanos() / 1000.0, r.write().latency().p999Nanos() / 1000.0,
                        r.write().latency().meanNanos() / md,
                        d.mirror() == null ? "" : String.format("%.2f",
                                (double) best.get(i).timerUnplugs() / Math.max(1, r.write().ios())),
                        d.mirror() == null ? "" : String.format("%.0f",
                                100.0 * best.get(i).directWrites() / Math.max(1, r.write().ios())));
            }
        }
        devices.forEach(d -> d.stop().run());
        t.print();
    }
}
