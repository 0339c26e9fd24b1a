package io.blockwork.engine.dm;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gate between a mapped device's submitters and its table: a count of I/O in flight (dm's
 * {@code md->pending}), the flag that holds new I/O back during a suspend
 * ({@code DMF_BLOCK_IO_FOR_SUSPEND}), and the queue held I/O waits in.
 *
 * <p>Why it is correct. A submitter increments the count <em>before</em> it reads the flag
 * ({@link #tryEnter}); a suspender sets the flag <em>before</em> it reads the count
 * ({@link #block}, then {@link #awaitDrained}). Both are volatile accesses, so in any interleaving
 * either the suspender sees the submitter's ticket and waits for it, or the submitter sees the flag
 * and holds its I/O: nothing is mapped behind a suspender's back. Checking the flag first and
 * counting after would let a submitter slip through between the two (the broken twin the model
 * check rejects). A submitter that saw the flag queues its I/O under {@link #lock}, where the flag
 * is checked again, so an item is never queued after {@link #unblock} emptied the queue.
 *
 * <p>The fast path is one atomic increment, one volatile read and one atomic decrement; the
 * completer that takes the count to zero wakes the waiter only if one announced itself.
 *
 * @param <T> what is held: I/O waiting to be submitted again
 */
final class IoGate<T> {

    /** How {@link #hold} ended. */
    enum Hold { HELD, OPEN, CLOSED }

    private final AtomicLong count = new AtomicLong();
    /** Set by the (single, control-locked) waiter before it checks the count. */
    private volatile boolean waiting;
    /** Guards nothing but the wait/notify hand-off; leaf. */
    private final Object drained = new Object();

    /** Leaf lock; guards {@link #held} and {@link #closed}; {@link #blocked} changes under it. */
    private final Object lock = new Object();
    private volatile boolean blocked;
    @GuardedBy("lock")
    private boolean closed;
    /** Held I/O, oldest first. */
    @GuardedBy("lock")
    private List<T> held = new ArrayList<>();

    /* ---- Submitters ---- */

    /** Takes a ticket and returns true, or returns false (no ticket) if I/O is being held. */
    boolean tryEnter() {
        count.incrementAndGet();
        if (blocked) {
            exit();
            return false;
        }
        return true;
    }

    /** Takes a ticket whatever the flag says: for work derived from I/O already admitted. */
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

    /**
     * Queues {@code item} while I/O is held: HELD; or OPEN if the gate opened since the caller's
     * {@link #tryEnter} (the caller submits it again); or CLOSED for good (the caller fails it).
     */
    Hold hold(T item) {
        synchronized (lock) {
            if (closed) {
                return Hold.CLOSED;
            }
            if (!blocked) {
                return Hold.OPEN;
            }
            held.add(item);
            return Hold.HELD;
        }
    }

    /** Queues {@code item} for the next {@link #unblock} whatever the flag says (a noflush push-back). */
    void park(T item) {
        synchronized (lock) {
            held.add(item);
        }
    }

    /* ---- The suspender (one at a time) ---- */

    void block() {
        synchronized (lock) {
            blocked = true;
        }
    }

    /** Waits for the count to reach zero; false if {@code timeoutNanos} passed first. */
    boolean awaitDrained(long timeoutNanos) throws InterruptedException {
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

    /** Opens the gate and returns what was held, for the caller to submit again. */
    List<T> unblock() {
        synchronized (lock) {
            blocked = false;
            return takeHeld();
        }
    }

    /** Closes the gate for good (a removed device) and returns what was held, to fail. */
    List<T> close() {
        synchronized (lock) {
            closed = true;
            blocked = true;
            return takeHeld();
        }
    }

    @GuardedBy("lock")
    private List<T> takeHeld() {
        List<T> out = held;
        held = new ArrayList<>();
        return out;
    }

    long inFlight() {
        return count.get();
    }
}
