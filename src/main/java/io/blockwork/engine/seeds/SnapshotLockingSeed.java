package io.blockwork.engine.seeds;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.snapshot.SnapshotLocking;
import io.blockwork.engine.dm.snapshot.StoreType;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.engine.dm.targets.Targets;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Seed 004, snapshot locking: the device-mapper test suite's
 * {@code fio_{origin,snapshot}_randwrite_{throughput,latency}_{N,P}} on null disks (null_blk): an
 * origin with one snapshot of 4 KiB chunks, 4K random writes by N workers each on its own region
 * ({@code size = origin / N}, {@code offset_increment = size}), to the origin (every first write
 * to a chunk copies it out) or to the snapshot. {@code global} (one lock held across allocation)
 * against {@code fine} (rw lock plus bucket locks). Every cell builds fresh devices, so the
 * snapshot starts empty as the suite's zeroed COW. The experiment runs
 * {@code fio_origin_randwrite_throughput_N} with eight workers, the seed's headline cell: since
 * issue 20 an exception's copy and completion run on the writers' threads under both strategies,
 * so the writers contend for {@code global}'s one lock there (with one worker nothing contends and
 * the two are level), after a one-second warm-up, each strategy twice in alternating order
 * (global, fine, fine, global), the better run counting.
 */
public final class SnapshotLockingSeed extends SeedExperiment {

    /** 16 GiB: big enough that a cell's random writes mostly meet chunks not yet copied. */
    public static final long ORIGIN_BYTES = 16L << 30;
    private static final long CHUNK_SECTORS = 8;
    private static final int EXPERIMENT_WORKERS = 8;

    /** Where the workers write. */
    public enum Target { ORIGIN, SNAPSHOT;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final List<SnapshotLocking.Kind> KINDS = List.of(SnapshotLocking.Kind.GLOBAL,
            SnapshotLocking.Kind.FINE);

    public SnapshotLockingSeed() {
        super("004", "snapshot locking: fio_origin_randwrite_throughput_N: 4K random writes to the origin, iodepth 32, "
                + EXPERIMENT_WORKERS + " workers, null disks, 4 KiB chunks (better of two runs each)",
                "IOPS", true, KINDS.stream().map(SnapshotLocking.Kind::label).toList());
    }

    @Override
    public SeedOutcome run(long seconds, SeedRun run) {
        Map<SnapshotLocking.Kind, WorkloadResult> best = new HashMap<>();
        run.phase(SnapshotLocking.Kind.FINE.label(), "warming up");
        measure(Target.ORIGIN, StoreType.TRANSIENT, 32, EXPERIMENT_WORKERS, 1, SnapshotLocking.Kind.FINE, run);
        for (int i : alternating(KINDS.size(), 2)) { // global, fine, fine, global
            SnapshotLocking.Kind k = KINDS.get(i);
            WorkloadResult r = measure(Target.ORIGIN, StoreType.TRANSIENT, 32, EXPERIMENT_WORKERS, seconds, k, run);
            best.merge(k, r, (a, b) -> b.write().iops() > a.write().iops() ? b : a);
        }
        List<SeedOutcome.Measured> m = new ArrayList<>();
        for (SnapshotLocking.Kind k : KINDS) {
            WorkloadResult r = best.get(k);
            m.add(new SeedOutcome.Measured(k.label(), r.write().iops(), r,
                    Map.of("meanLatencyUs", r.write().latency().meanNanos() / 1000.0)));
        }
        return SeedOutcome.of(this, m.get(0), m.get(1));
    }

    /** Builds origin and snapshot on fresh null disks, runs the workers, removes both. */
    public WorkloadResult measure(Target target, StoreType store, int ioDepth, int workers, long seconds,
                                  SnapshotLocking.Kind locking, SeedRun run) {
        run.phase(locking.label(), "building an origin and its snapshot on null disks");
        Disk base = Disk.nullDisk("base", ORIGIN_BYTES, DiskConfig.DEFAULT);
        // The suite's COW: room for every chunk and, for P, its metadata areas (one per 256 chunks).
        Disk cow = Disk.nullDisk("cow", ORIGIN_BYTES + ORIGIN_BYTES / 256 + (1 << 20), DiskConfig.DEFAULT);
        Map<String, BlockDevice> names = byName(List.of(base, cow));
        var config = Targets.config().withSnapshotLocking(locking);
        long sectors = ORIGIN_BYTES >> 9;
        MappedDevice volume = tables("origin table", () -> MappedDevice.create("seed004-vol", null,
                Snapshots.originTable("base", sectors), names::get, config));
        names.put(volume.name(), volume);
        MappedDevice snap = tables("snapshot table",
                () -> Snapshots.create(volume, "seed004-snap", cow, store, CHUNK_SECTORS, names::get, config));
        try {
            BlockDevice dev = target == Target.ORIGIN ? volume : snap;
            WorkloadSpec spec = WorkloadSpec.builder(RwMode.RANDWRITE, 4096).jobs(workers).ioDepth(ioDepth)
                    .size(ORIGIN_BYTES / workers).offsetIncrement(ORIGIN_BYTES / workers)
                    .runtime(seconds * WorkloadSpec.SECOND).build();
            return run.execute(locking.label(), dev, spec);
        } finally {
            snap.remove();
            volume.remove();
        }
    }
}
