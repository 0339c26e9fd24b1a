package io.blockwork.bench;

import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.dm.EmptyFlush;
import io.blockwork.engine.seeds.DmEmptyFlushSeed;
import io.blockwork.engine.seeds.SeedRun;
import io.blockwork.engine.workload.WorkloadResult;
import java.util.List;

/**
 * Issue 5's benchmark, seed 002 ({@link DmEmptyFlushSeed}, which the service's experiment for
 * seed 002 runs too): a 1024-target linear table over one writeback memory disk whose media flush
 * takes 1 ms (and again with the targets alternating over two disks); 16 writers each doing 4K
 * random writes with an fdatasync after every write (fio's {@code fsync=1}). Empty-flush strategy
 * {@code per-target} against {@code per-device}: IOPS, and the flush requests and media flushes
 * the disks saw per fsync.
 *
 * <p>Each layout runs on two kinds of disk. With flush merging {@code off}, every flush request
 * costs the disk a media flush, as on the seed's device (its 1024 flushes per fsync took about
 * 73 us each); this is the seed's situation. With {@code merged} (blk-flush's rule, the disks'
 * default), a disk absorbs the 1024 requests of one fsync into one or two media flushes, and
 * what {@code per-target} still costs is the work of 1024 clones, maps and flush requests per
 * fsync.
 */
final class DmBenchmark {

    private DmBenchmark() {}

    static void run() {
        long seconds = Bench.seconds(4);
        for (int disks : new int[] {1, 2}) {
            table(disks, seconds).print();
        }
    }

    private static Table table(int diskCount, long seconds) {
        DmEmptyFlushSeed seed = new DmEmptyFlushSeed();
        Table t = new Table("dm: " + DmEmptyFlushSeed.WRITERS + " writers, 4K randwrite + fdatasync, "
                + DmEmptyFlushSeed.TARGETS + "-target linear table "
                + (diskCount == 1 ? "over one writeback memory disk" : "alternating over " + diskCount + " writeback memory disks")
                + ", 1 ms media flush",
                "disk flush merging", "strategy", "IOPS", "fsyncs", "disk flush requests", "flush requests/fsync",
                "media flushes/fsync", "fsync mean ms", "fsync p99 ms");
        seed.measure(diskCount, FlushMerging.MERGED, EmptyFlush.PER_DEVICE, 1, SeedRun.quiet()); // warm-up
        for (FlushMerging merging : List.of(FlushMerging.OFF, FlushMerging.MERGED)) {
            double[] iops = new double[2];
            int i = 0;
            for (EmptyFlush strategy : List.of(EmptyFlush.PER_TARGET, EmptyFlush.PER_DEVICE)) {
                DmEmptyFlushSeed.Cell c = seed.measure(diskCount, merging, strategy, seconds, SeedRun.quiet());
                WorkloadResult r = c.result();
                long fsyncs = Math.max(1, r.flush().ios());
                iops[i++] = r.write().iops();
                t.row(merging.label(), strategy.label(), r.write().iops(), r.flush().ios(), c.flushRequests(),
                        (double) c.flushRequests() / fsyncs, (double) c.mediaFlushes() / fsyncs,
                        r.flush().latency().meanNanos() / 1e6, r.flush().latency().p99Nanos() / 1e6);
            }
            t.row(merging.label(), "per-device/per-target", iops[1] / iops[0], "", "", "", "", "", "");
        }
        return t;
    }
}
