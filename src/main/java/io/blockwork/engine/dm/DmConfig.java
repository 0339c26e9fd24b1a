package io.blockwork.engine.dm;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.block.DeadlineScheduler;
import io.blockwork.engine.block.IoTimer;
import io.blockwork.engine.dm.snapshot.SnapshotConfig;
import io.blockwork.engine.dm.snapshot.SnapshotLocking;
import io.blockwork.engine.dm.thin.ThinConfig;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * How mapped devices are built: which target types tables may name, the timer and clock targets
 * use (injected so tests drive time by hand), and the strategies chosen per device at creation.
 *
 * @param registry the target types
 * @param timer delayed work (dm-delay, plug timers), {@link IoTimer#shared()} by default
 * @param clock monotonic nanoseconds (dm-flakey's intervals), {@link System#nanoTime()} by default
 * @param emptyFlush {@code per-device} (default) or {@code per-target} (seed 002)
 * @param batchDispatch how worker-driven targets (the mirror's worker and region copier) release
 *        their batches of bios: {@code explicit} (default) or {@code timer} (seed 003)
 * @param snapshots the origin registry and snapshot settings (seed 004's locking strategy)
 * @param thin the thin-pool registry and thin-pool settings
 */
public record DmConfig(TargetRegistry registry, DeadlineScheduler timer, LongSupplier clock, EmptyFlush emptyFlush,
                       BatchDispatch.Kind batchDispatch, SnapshotConfig snapshots, ThinConfig thin) {

    public DmConfig {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(timer, "timer");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(emptyFlush, "emptyFlush");
        Objects.requireNonNull(batchDispatch, "batchDispatch");
        Objects.requireNonNull(snapshots, "snapshots");
        Objects.requireNonNull(thin, "thin");
    }

    /** The production defaults around {@code registry}, with a fresh origin registry and pool registry. */
    public static DmConfig of(TargetRegistry registry) {
        return new DmConfig(registry, IoTimer.shared(), System::nanoTime, EmptyFlush.PER_DEVICE,
                BatchDispatch.Kind.EXPLICIT, SnapshotConfig.defaults(), ThinConfig.defaults());
    }

    public DmConfig withTimer(DeadlineScheduler t) {
        return new DmConfig(registry, t, clock, emptyFlush, batchDispatch, snapshots, thin);
    }

    public DmConfig withClock(LongSupplier c) {
        return new DmConfig(registry, timer, c, emptyFlush, batchDispatch, snapshots, thin);
    }

    public DmConfig withEmptyFlush(EmptyFlush strategy) {
        return new DmConfig(registry, timer, clock, strategy, batchDispatch, snapshots, thin);
    }

    public DmConfig withBatchDispatch(BatchDispatch.Kind kind) {
        return new DmConfig(registry, timer, clock, emptyFlush, kind, snapshots, thin);
    }

    public DmConfig withRegistry(TargetRegistry r) {
        return new DmConfig(r, timer, clock, emptyFlush, batchDispatch, snapshots, thin);
    }

    public DmConfig withSnapshots(SnapshotConfig s) {
        return new DmConfig(registry, timer, clock, emptyFlush, batchDispatch, s, thin);
    }

    public DmConfig withThin(ThinConfig t) {
        return new DmConfig(registry, timer, clock, emptyFlush, batchDispatch, snapshots, t);
    }

    /** The same origin registry; snapshots created with the result use {@code kind} ({@code fine} or {@code global}). */
    public DmConfig withSnapshotLocking(SnapshotLocking.Kind kind) {
        return withSnapshots(snapshots.withLocking(kind));
    }
}
