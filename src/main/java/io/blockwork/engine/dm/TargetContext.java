package io.blockwork.engine.dm;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeadlineScheduler;
import io.blockwork.engine.dm.snapshot.SnapshotConfig;
import io.blockwork.engine.dm.thin.ThinConfig;
import java.util.function.LongSupplier;

/**
 * What a target's constructor learns about its place (the kernel's {@code struct dm_target}
 * fields a {@code ctr} reads) and the services it may use: the engine's timer for delayed work,
 * a clock (injected, so tests drive time by hand), its mapped device's event counter and
 * suspend state, the snapshot settings (origin registry, locking strategy) and the thin-pool
 * settings (pool registry).
 */
public final class TargetContext {

    private final long beginSector;
    private final long lengthSectors;
    private final DmConfig config;
    private final TableOwner owner;
    private final BlockDevice device;

    TargetContext(long beginSector, long lengthSectors, DmConfig config, TableOwner owner, BlockDevice device) {
        this.beginSector = beginSector;
        this.lengthSectors = lengthSectors;
        this.config = config;
        this.owner = owner;
        this.device = device;
    }

    /** The mapped device the table is built for, or null when a table is checked on its own. */
    public BlockDevice device() {
        return device;
    }

    /** First sector of the target in the mapped device ({@code ti->begin}). */
    public long beginSector() {
        return beginSector;
    }

    /** Sectors the target covers ({@code ti->len}). */
    public long lengthSectors() {
        return lengthSectors;
    }

    /** Runs delayed work without a thread per waiting bio. */
    public DeadlineScheduler timer() {
        return config.timer();
    }

    /** Monotonic nanoseconds, like {@link System#nanoTime()}. */
    public LongSupplier clock() {
        return config.clock();
    }

    /** How a worker thread of the target releases its batches of bios (seed 003), the device's choice. */
    public BatchDispatch.Kind batchDispatch() {
        return config.batchDispatch();
    }

    /** The origin registry and settings snapshot targets use. */
    public SnapshotConfig snapshots() {
        return config.snapshots();
    }

    /** The thin-pool registry and settings thin-pool and thin targets use. */
    public ThinConfig thin() {
        return config.thin();
    }

    /** Bumps the mapped device's event counter ({@code dm_table_event}); callable from any thread. */
    public void triggerEvent() {
        owner.event();
    }

    /** True while the mapped device is being suspended with {@code noflush} ({@code dm_noflush_suspending}). */
    public boolean noflushSuspending() {
        return owner.noflushSuspending();
    }
}
