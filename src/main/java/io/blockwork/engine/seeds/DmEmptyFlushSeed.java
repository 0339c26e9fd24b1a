package io.blockwork.engine.seeds;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.engine.dm.EmptyFlush;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.targets.Targets;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Seed 002, dm empty flushes: a 1024-target linear table over writeback memory disks whose media
 * flush takes 1 ms; 16 writers each doing 4K random writes with an fdatasync after every write.
 * {@code per-target} (a flush through every target, 1024 per fsync) against {@code per-device}
 * (one flush per distinct underlying device).
 *
 * <p>With flush merging {@code off} on the disks every flush request costs a media flush, as on
 * the seed's device: {@code per-target}'s fsync then takes a second per writer. The experiment
 * runs the disks' default, {@code merged}, where a disk folds the 1024 requests into one or two
 * media flushes and what {@code per-target} still costs is 1024 clones, maps and flush requests
 * per fsync; the benchmark runs both.
 */
public final class DmEmptyFlushSeed extends SeedExperiment {

    public static final int TARGETS = 1024;
    /** 1 MiB each: a 1 GiB device (memory disks are sparse: only what is written costs memory). */
    private static final long TARGET_SECTORS = 2048;
    public static final int WRITERS = 16;

    /** One strategy's run, and the flush requests and media flushes its disks saw. */
    public record Cell(WorkloadResult result, long flushRequests, long mediaFlushes) {}

    public DmEmptyFlushSeed() {
        super("002", "dm empty flush: " + WRITERS + " writers, 4K randwrite + fdatasync, " + TARGETS
                + "-target linear table over one writeback memory disk (1 ms media flush, flush merging on)",
                "IOPS", true, List.of(EmptyFlush.PER_TARGET.label(), EmptyFlush.PER_DEVICE.label()));
    }

    @Override
    public SeedOutcome run(long seconds, SeedRun run) {
        run.phase(EmptyFlush.PER_DEVICE.label(), "warming up");
        measure(1, FlushMerging.MERGED, EmptyFlush.PER_DEVICE, 1, run);
        List<SeedOutcome.Measured> m = new ArrayList<>();
        for (EmptyFlush strategy : List.of(EmptyFlush.PER_TARGET, EmptyFlush.PER_DEVICE)) {
            Cell c = measure(1, FlushMerging.MERGED, strategy, seconds, run);
            long fsyncs = Math.max(1, c.result().flush().ios());
            m.add(new SeedOutcome.Measured(strategy.label(), c.result().write().iops(), c.result(), Map.of(
                    "flushRequestsPerFsync", (double) c.flushRequests() / fsyncs,
                    "mediaFlushesPerFsync", (double) c.mediaFlushes() / fsyncs)));
        }
        return SeedOutcome.of(this, m.get(0), m.get(1));
    }

    /**
     * Builds the table over {@code diskCount} disks (targets alternating between them), runs the
     * writers for {@code seconds} and removes the device.
     */
    public Cell measure(int diskCount, FlushMerging merging, EmptyFlush strategy, long seconds, SeedRun run) {
        run.phase(strategy.label(), "building a " + TARGETS + "-target linear table");
        DiskConfig config = DiskConfig.writeback().withLatency(new LatencyModel(0, 0, 1_000_000, 0)).withFlushMerging(merging);
        List<Disk> disks = memoryDisks("d", diskCount, TARGETS / diskCount * TARGET_SECTORS * 512, config);
        Map<String, BlockDevice> names = byName(disks);
        StringBuilder table = new StringBuilder();
        for (int i = 0; i < TARGETS; i++) {
            table.append(i * TARGET_SECTORS).append(' ').append(TARGET_SECTORS).append(" linear d").append(i % diskCount)
                    .append(' ').append(i / diskCount * TARGET_SECTORS).append('\n');
        }
        MappedDevice dev = tables("linear table", () -> MappedDevice.create("seed002-" + strategy.label(), null,
                table.toString(), names::get, Targets.config().withEmptyFlush(strategy)));
        try {
            // Stopped from outside rather than by runtime: a job checks its clock only every 16
            // writes, and with merging off one per-target fsync takes the disk a second per writer.
            WorkloadResult r = run.execute(strategy.label(), dev, WorkloadSpec.builder(RwMode.RANDWRITE, 4096)
                    .jobs(WRITERS).ioDepth(1).fsync(1).runtime(3600 * WorkloadSpec.SECOND).build(), seconds);
            long requests = 0;
            long media = 0;
            for (Disk d : disks) {
                requests += d.counters().flushes();
                media += d.mediaFlushes();
            }
            return new Cell(r, requests, media);
        } finally {
            dev.remove();
        }
    }
}
