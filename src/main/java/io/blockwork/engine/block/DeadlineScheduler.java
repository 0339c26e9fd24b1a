package io.blockwork.engine.block;

/** Runs a task once a delay has passed; {@link IoTimer} in production, a hand-cranked clock in tests. */
@FunctionalInterface
public interface DeadlineScheduler {
    void schedule(long delayNanos, Runnable task);
}
