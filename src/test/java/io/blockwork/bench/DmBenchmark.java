package io.blockwork.bench;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.engine.dm.EmptyFlush;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.targets.Targets;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Issue 5's benchmark, seed 002: a 1024-target linear table over one writeback memory disk
 * whose media flush takes 1 ms (and again with the targets alternating over two disks); 16
 * writers each doing 4K random writes with an fdatasync after every write (fio's
 * {@code fsync=1}). Empty-flush strategy {@code per-target} against {@code per-device}: IOPS, and
 * the flush requests and media flushes the disks saw per fsync.
 *
 * <p>Each layout runs on two kinds of disk. With flush merging {@code off}, every flush request
 * costs the disk a media flush, as on the seed's device (its 1024 flushes per fsync took about
 * 73 us each); this is the seed's situation. With {@code merged} (blk-flush's rule, the disks'
 * default), a disk absorbs the 1024 requests of one fsync into one or two media flushes, and
 * what {@code per-target} still costs is the work of 1024 clones, maps and flush requests per
 * fsync.
 */
final class DmBenchmark {

    private static final int TARGETS = 1024;
    private static final long TARGET_SECTORS = 2048; // 1 MiB each: a 1 GiB device
    private static final int WRITERS = 16;

    private DmBenchmark() {}

    static void run() {
        long seconds = Bench.seconds(4);
        for (int disks : new int[] {1, 2}) {
            table(disks, seconds).print();
        }
    }

    private static Table table(int diskCount, long seconds) {
        Table t = new Table("dm: " + WRITERS + " writers, 4K randwrite + fdatasync, " + TARGETS + "-target linear table "
                + (diskCount == 1 ? "over one writeback memory disk" : "alternating over " + diskCount + " writeback memory disks")
                + ", 1 ms media flush",
                "disk flush merging", "strategy", "IOPS", "fsyncs", "disk flush requests", "flush requests/fsync",
                "media flushes/fsync", "fsync mean ms", "fsync p99 ms");
        measure(diskCount, FlushMerging.MERGED, EmptyFlush.PER_DEVICE, 1); // warm-up
        for (FlushMerging merging : List.of(FlushMerging.OFF, FlushMerging.MERGED)) {
            double[] iops = new double[2];
            int i = 0;
            for (EmptyFlush strategy : List.of(EmptyFlush.PER_TARGET, EmptyFlush.PER_DEVICE)) {
                Cell c = measure(diskCount, merging, strategy, seconds);
                WorkloadResult r = c.result;
                long fsyncs = Math.max(1, r.flush().ios());
                iops[i++] = r.write().iops();
                t.row(merging.label(), strategy.label(), r.write().iops(), r.flush().ios(), c.flushRequests,
                        (double) c.flushRequests / fsyncs, (double) c.mediaFlushes / fsyncs,
                        r.flush().latency().meanNanos() / 1e6, r.flush().latency().p99Nanos() / 1e6);
            }
            t.row(merging.label(), "per-device/per-target", iops[1] / iops[0], "", "", "", "", "", "");
        }
        return t;
    }

    private record Cell(WorkloadResult result, long flushRequests, long mediaFlushes) {}

    private static Cell measure(int diskCount, FlushMerging merging, EmptyFlush strategy, long seconds) {
        DiskConfig config = DiskConfig.writeback().withLatency(new LatencyModel(0, 0, 1_000_000, 0)).withFlushMerging(merging);
        Map<String, BlockDevice> names = new HashMap<>();
        Disk[] disks = new Disk[diskCount];
        for (int d = 0; d < diskCount; d++) {
            disks[d] = Disk.memory("d" + d, TARGETS / diskCount * TARGET_SECTORS * 512, config);
            names.put(disks[d].name(), disks[d]);
        }
        StringBuilder table = new StringBuilder();
        for (int i = 0; i < TARGETS; i++) {
            table.append(i * TARGET_SECTORS).append(' ').append(TARGET_SECTORS).append(" linear d").append(i % diskCount)
                    .append(' ').append(i / diskCount * TARGET_SECTORS).append('\n');
        }
        MappedDevice dev = MappedDevice.create("bench", null, table.toString(), names::get,
                Targets.config().withEmptyFlush(strategy));
        // Stopped from here rather than by runtime: a job checks its clock only every 16 writes,
        // and with merging off one per-target fsync takes the disk a second per writer.
        Workload load = new Workload(dev, WorkloadSpec.builder(RwMode.RANDWRITE, 4096).jobs(WRITERS).ioDepth(1)
                .fsync(1).runtime(3600 * WorkloadSpec.SECOND).build(), Thread.ofPlatform().name("dm-bench-", 0).factory());
        WorkloadResult r;
        try (ScheduledExecutorService stopper = Executors.newSingleThreadScheduledExecutor()) {
            stopper.schedule(load::stop, seconds, TimeUnit.SECONDS);
            r = load.execute(sample -> {});
            stopper.shutdownNow();
        }
        long requests = 0;
        long media = 0;
        for (Disk d : disks) {
            requests += d.counters().flushes();
            media += d.mediaFlushes();
        }
        dev.remove();
        return new Cell(r, requests, media);
    }
}
