package io.blockwork.engine.block;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.PriorityQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One thread that runs tasks at a deadline: latency-model completions, plug timers. A waiting I/O
 * costs a heap entry, not a thread and not a spinning core.
 *
 * <p>Tasks run on the timer thread and must be short and non-blocking (bio callbacks are).
 * Precision is that of {@link LockSupport#parkNanos}: on Linux, tens of microseconds late.
 */
public final class IoTimer implements DeadlineScheduler {

    private static final System.Logger LOG = System.getLogger(IoTimer.class.getName());
    private static final IoTimer SHARED = new IoTimer("blockwork-io-timer");

    private record Entry(long deadline, long seq, Runnable task) implements Comparable<Entry> {
        @Override
        public int compareTo(Entry o) {
            int c = Long.compare(deadline - o.deadline, 0);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    @GuardedBy("lock")
    private final PriorityQueue<Entry> heap = new PriorityQueue<>();
    @GuardedBy("lock")
    private long seq;
    private final Thread thread;

    public IoTimer(String name) {
        thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this::loop);
        thread.start();
    }

    public static IoTimer shared() {
        return SHARED;
    }

    /** Runs {@code task} on the timer thread once {@code delayNanos} have passed. */
    @Override
    public void schedule(long delayNanos, Runnable task) {
        Entry e;
        boolean first;
        lock.lock();
        try {
            e = new Entry(System.nanoTime() + delayNanos, seq++, task);
            heap.add(e);
            first = heap.peek() == e;
        } finally {
            lock.unlock();
        }
        if (first) {
            LockSupport.unpark(thread);
        }
    }

    private void loop() {
        ArrayList<Runnable> due = new ArrayList<>();
        while (true) {
            long waitNanos;
            lock.lock();
            try {
                long now = System.nanoTime();
                Entry head;
                while ((head = heap.peek()) != null && head.deadline - now <= 0) {
                    due.add(heap.poll().task);
                }
                waitNanos = head == null ? Long.MAX_VALUE : head.deadline - now;
            } finally {
                lock.unlock();
            }
            if (due.isEmpty()) {
                if (waitNanos == Long.MAX_VALUE) {
                    LockSupport.park(this);
                } else {
                    LockSupport.parkNanos(this, waitNanos);
                }
                continue;
            }
            for (Runnable task : due) {
                try {
                    task.run();
                } catch (RuntimeException | Error ex) {
                    LOG.log(Level.ERROR, "timer task failed", ex);
                }
            }
            due.clear();
        }
    }
}
