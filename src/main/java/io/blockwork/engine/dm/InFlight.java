package io.blockwork.engine.dm;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A mapped device's count of I/O in flight (dm's {@code md->pending}), and the wait for it to
 * drain that suspend does. Submitters pay one atomic add and one subtract; the completer that
 * takes the count to zero wakes the waiter only if one announced itself, so the fast path never
 * touches the monitor.
 */
final class InFlight {

    private final AtomicLong count = new AtomicLong();
    /** Set by the (single, control-locked) waiter before it checks the count. */
    private volatile boolean waiting;
    /** Guards nothing but the wait/notify hand-off; leaf, never held across I/O. */
    private final Object drained = new Object();

    void enter() {
        count.incrementAndGet();
    }

    void exit() {
        if (count.decrementAndGet() == 0 && waiting) {
            synchronized (drained) {
                drained.notifyAll();
            }
        }
    }

    long count() {
        return count.get();
    }

    /** Waits for the count to reach zero; false if {@code timeoutNanos} passed first. */
    boolean awaitZero(long timeoutNanos) throws InterruptedException {
        waiting = true;
        try {
            long deadline = System.nanoTime() + timeoutNanos;
            synchronized (drained) {
                while (count.get() != 0) {
                    if (timeoutNanos == Long.MAX_VALUE) {
                        drained.wait();
                        continue;
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(drained, left);
                }
            }
            return true;
        } finally {
            waiting = false;
        }
    }
}
