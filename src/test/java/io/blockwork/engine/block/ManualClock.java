package io.blockwork.engine.block;

import java.util.ArrayList;
import java.util.List;

/** A {@link DeadlineScheduler} that runs nothing until the test advances it. */
public final class ManualClock implements DeadlineScheduler {
    private record Task(long due, Runnable task) {}

    private final List<Task> tasks = new ArrayList<>();
    private long now;

    @Override
    public synchronized void schedule(long delayNanos, Runnable task) {
        tasks.add(new Task(now + delayNanos, task));
    }

    /** Moves time forward and runs, in deadline order, every task that fell due. */
    public void advance(long nanos) {
        List<Task> due = new ArrayList<>();
        synchronized (this) {
            now += nanos;
            tasks.removeIf(t -> t.due <= now && due.add(t));
        }
        due.sort((a, b) -> Long.compare(a.due, b.due));
        due.forEach(t -> t.task.run());
    }

    /** The current time, for code that reads a clock ({@code LongSupplier}) rather than scheduling. */
    public synchronized long nanos() {
        return now;
    }

    public synchronized int pending() {
        return tasks.size();
    }
}
