package io.blockwork.engine.dm.snapshot;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Caps the bytes a snapshot is copying at once (the kernel's {@code in_progress} counter and
 * {@code cow_threshold}, as reworked in "dm snapshot: rework COW throttling to fix deadlock"):
 * a write that arrives while more than the cap is being copied waits here until copies end.
 * Nothing sleeps: the write is queued as a retry and runs again, from the start of its path, on the
 * thread that ends the copy which brings the count back under the cap. The check is made before
 * any lock of the snapshot is taken, so a queued write holds nothing.
 */
final class CowThrottle {

    private final long capBytes;
    private final AtomicLong inProgress = new AtomicLong();
    /** Leaf lock: guards {@link #waiters}; the decisions to queue and to wake are made under it. */
    private final Object lock = new Object();
    /** Retries, oldest first. */
    @GuardedBy("lock")
    private final ArrayDeque<Runnable> waiters = new ArrayDeque<>();
    /**
     * True while {@link #waiters} may be non-empty: written under {@link #lock}, read without it
     * by {@link #endCopy}, so that a copy ending below the cap (nearly every one) takes no lock.
     * Set before a writer checks the count again and queues, read after a copy's decrement: either
     * the writer sees the decrement, or the ending copy sees the flag (both are volatile accesses).
     */
    private volatile boolean mayHaveWaiters;

    /** @param capBytes copies in flight beyond which writes wait; 0 for no cap */
    CowThrottle(long capBytes) {
        this.capBytes = capBytes <= 0 ? Long.MAX_VALUE : capBytes;
    }

    /** True if a write may go on now; otherwise {@code retry} is queued and runs when copies drain. */
    boolean admit(Runnable retry) {
        if (inProgress.get() <= capBytes) {
            return true;
        }
        synchronized (lock) {
            mayHaveWaiters = true;
            if (inProgress.get() <= capBytes) {
                mayHaveWaiters = !waiters.isEmpty();
                return true;
            }
            waiters.add(retry);
            return false;
        }
    }

    void startCopy(long bytes) {
        inProgress.addAndGet(bytes);
    }

    /** A copy ended; if that brings the count to the cap or below, queued writes run now, here. */
    void endCopy(long bytes) {
        // Decrement first, then look: a writer that queued after checking saw the old count.
        if (inProgress.addAndGet(-bytes) > capBytes || !mayHaveWaiters) {
            return;
        }
        List<Runnable> wake;
        synchronized (lock) {
            if (waiters.isEmpty()) {
                return;
            }
            wake = new ArrayList<>(waiters);
            waiters.clear();
            mayHaveWaiters = false;
        }
        wake.forEach(Runnable::run);
    }

    long inProgressBytes() {
        return inProgress.get();
    }

    int waiting() {
        synchronized (lock) {
            return waiters.size();
        }
    }
}
