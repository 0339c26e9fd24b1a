package io.blockwork.engine.dm;

import io.blockwork.engine.block.DeadlineScheduler;
import io.blockwork.engine.block.IoTimer;
import io.blockwork.engine.dm.snapshot.SnapshotConfig;
import io.blockwork.engine.dm.snapshot.SnapshotLocking;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * How mapped devices are built: which target types tables may name, the timer and clock targets
 * use (injected so tests drive time by hand), and the empty-flush strategy, chosen per device
 * at creation.
 *
 * @param registry the target types
 * @param timer delayed work (dm-delay), {@link IoTimer#shared()} by default
 * @param clock monotonic nanoseconds (dm-flakey's intervals), {@link System#nanoTime()} by default
 * @param emptyFlush {@code per-device} (default) or {@code per-target}
 * @param snapshots the origin registry and snapshot settings (seed 004's locking strategy)
 */
public record DmConfig(TargetRegistry registry, DeadlineScheduler timer, LongSupplier clock, EmptyFlush emptyFlush,
                       SnapshotConfig snapshots) {

    public DmConfig {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(timer, "timer");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(emptyFlush, "emptyFlush");
        Objects.requireNonNull(snapshots, "snapshots");
    }

    /** The production defaults around {@code registry}, with a fresh origin registry. */
    public static DmConfig of(TargetRegistry registry) {
        return new DmConfig(registry, IoTimer.shared(), System::nanoTime, EmptyFlush.PER_DEVICE, SnapshotConfig.defaults());
    }

    public DmConfig withTimer(DeadlineScheduler t) {
        return new DmConfig(registry, t, clock, emptyFlush, snapshots);
    }

    public DmConfig withClock(LongSupplier c) {
        return new DmConfig(registry, timer, c, emptyFlush, snapshots);
    }

    public DmConfig withEmptyFlush(EmptyFlush strategy) {
        return new DmConfig(registry, timer, clock, strategy, snapshots);
    }

    public DmConfig withRegistry(TargetRegistry r) {
        return new DmConfig(r, timer, clock, emptyFlush, snapshots);
    }

    public DmConfig withSnapshots(SnapshotConfig s) {
        return new DmConfig(registry, timer, clock, emptyFlush, s);
    }

    /** The same origin registry; snapshots created with the result use {@code kind} ({@code fine} or {@code global}). */
    public DmConfig withSnapshotLocking(SnapshotLocking.Kind kind) {
        return withSnapshots(snapshots.withLocking(kind));
    }
}
