package io.blockwork.engine.dm.snapshot;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * Puts finished copies back into the order their exceptions were prepared in, and completes them
 * one at a time in that order (the kernel's {@code exception_complete_sequence} and
 * {@code out_of_order_tree}): the persistent store must commit in allocation order, or a crash
 * could leave an area whose entries do not describe the chunks before the free pointer.
 *
 * <p>Copies finish on any thread (whichever completes a copy's write, or a whole-chunk
 * write). Whoever finds the next sequence number ready drains: it completes exceptions in order,
 * outside the lock, for as long as the next one is ready; others only queue theirs. So
 * completions never overlap and never run under a lock, and one arriving on the drainer's own
 * stack (an inline completion) is queued, not nested.
 */
final class CommitSequencer {

    private final Consumer<PendingException> complete;
    /** Leaf lock: guards the fields below. */
    private final Object lock = new Object();
    /** The sequence number to complete next. */
    @GuardedBy("lock")
    private long next;
    /** Finished copies waiting for their turn, by sequence. */
    @GuardedBy("lock")
    private final PriorityQueue<PendingException> ready =
            new PriorityQueue<>((a, b) -> Long.compare(a.sequence, b.sequence));
    /** A thread is completing exceptions. */
    @GuardedBy("lock")
    private boolean draining;
    /** The draining thread, or null: read without the lock by {@link #drainingHere}. */
    private volatile Thread drainer;

    CommitSequencer(Consumer<PendingException> complete) {
        this.complete = complete;
    }

    /**
     * The copy for {@code pe} has finished (well or not). The common case, the next one in order
     * with nobody draining, takes the lock twice (start, then find nothing more ready) and never
     * goes through {@link #ready}; issue 20's profile had the queue's sift and a third lock
     * acquisition on every completion.
     */
    void finished(PendingException pe) {
        PendingException p;
        synchronized (lock) {
            if (draining) {
                ready.add(pe);
                return;
            }
            if (pe.sequence != next) {
                ready.add(pe);
                p = ready.peek();
                if (p.sequence != next) {
                    return;
                }
                ready.poll();
            } else {
                p = pe;
            }
            next++;
            draining = true;
            drainer = Thread.currentThread();
        }
        while (true) {
            complete.accept(p);
            synchronized (lock) {
                p = ready.peek();
                if (p == null || p.sequence != next) {
                    draining = false;
                    drainer = null;
                    return;
                }
                ready.poll();
                next++;
            }
        }
    }

    /** True on the thread that is completing exceptions now, inside its drain loop. */
    boolean drainingHere() {
        return drainer == Thread.currentThread();
    }

    /** Finished copies waiting for an earlier one. */
    int outOfOrder() {
        synchronized (lock) {
            return ready.size();
        }
    }
}
