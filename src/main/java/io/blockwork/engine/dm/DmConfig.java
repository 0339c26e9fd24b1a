package io.blockwork.engine.dm;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.block.DeadlineScheduler;
import io.blockwork.engine.block.IoTimer;
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
 */
public record DmConfig(TargetRegistry registry, DeadlineScheduler timer, LongSupplier clock, EmptyFlush emptyFlush,
                       BatchDispatch.Kind batchDispatch) {

    public DmConfig {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(timer, "timer");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(emptyFlush, "emptyFlush");
        Objects.requireNonNull(batchDispatch, "batchDispatch");
    }

    /** The configuration before {@code batchDispatch} existed: {@code explicit} dispatch. */
    public DmConfig(TargetRegistry registry, DeadlineScheduler timer, LongSupplier clock, EmptyFlush emptyFlush) {
        this(registry, timer, clock, emptyFlush, BatchDispatch.Kind.EXPLICIT);
    }

    /** The production defaults around {@code registry}. */
    public static DmConfig of(TargetRegistry registry) {
        return new DmConfig(registry, IoTimer.shared(), System::nanoTime, EmptyFlush.PER_DEVICE);
    }

    public DmConfig withTimer(DeadlineScheduler t) {
        return new DmConfig(registry, t, clock, emptyFlush, batchDispatch);
    }

    public DmConfig withClock(LongSupplier c) {
        return new DmConfig(registry, timer, c, emptyFlush, batchDispatch);
    }

    public DmConfig withEmptyFlush(EmptyFlush strategy) {
        return new DmConfig(registry, timer, clock, strategy, batchDispatch);
    }

    public DmConfig withBatchDispatch(BatchDispatch.Kind kind) {
        return new DmConfig(registry, timer, clock, emptyFlush, kind);
    }

    public DmConfig withRegistry(TargetRegistry r) {
        return new DmConfig(r, timer, clock, emptyFlush, batchDispatch);
    }
}
