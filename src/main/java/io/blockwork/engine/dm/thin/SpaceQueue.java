package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.IoStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A pool's writes waiting for space: those that found no free data block (dm-thin's no-space
 * queue, bounded by the no-space timeout; {@link Pool} decides what the timeout and a refusal
 * mean for its mode and features), and those whose metadata reservation did not fit while other
 * writes held theirs ({@link SpaceMap#METADATA_RESERVED}), retried when one is given back.
 *
 * <p>Locks: {@link #lock} is a leaf; queued writes are retried or failed after it is released.
 */
final class SpaceQueue {

    /** A write waiting for data space. */
    record Waiting(long deadline, Runnable retry, Consumer<IoStatus> fail) {}

    /** What {@link #queue} did with a write. */
    enum Queued {
        /** Not queued: the caller fails it now. */
        REFUSED,
        /** Queued; the timeout is armed already, or there is none. */
        QUEUED,
        /** Queued, the first since the timeout last ran: the caller arms it. */
        ARM_TIMEOUT
    }

    private final PoolMetadata metadata;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}. */
    private List<Waiting> noSpace = new ArrayList<>();
    /** Writes waiting for metadata reservations to come back ({@link #awaitReservations}). Guarded by {@link #lock}. */
    private List<Runnable> awaitingReservations = new ArrayList<>();
    /** True while {@link #awaitingReservations} may be non-empty; written under {@link #lock}, read without it. */
    private volatile boolean reservationWaiters;
    /** Guarded by {@link #lock}. */
    private boolean timeoutArmed;

    SpaceQueue(PoolMetadata metadata) {
        this.metadata = metadata;
    }

    /* ---- Data space ---- */

    /**
     * Queues a write that found no data block until {@code timeoutNanos} (0: no timeout), unless
     * {@code refuse}, asked under the lock (so that it and {@link #expire} are one order), says it
     * fails now.
     */
    Queued queue(Runnable retry, Consumer<IoStatus> fail, BooleanSupplier refuse, long timeoutNanos) {
        lock.lock();
        try {
            if (refuse.getAsBoolean()) {
                return Queued.REFUSED;
            }
            noSpace.add(new Waiting(timeoutNanos == 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutNanos, retry, fail));
            if (timeoutNanos > 0 && !timeoutArmed) {
                timeoutArmed = true;
                return Queued.ARM_TIMEOUT;
            }
            return Queued.QUEUED;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The timeout passed: takes every queued write (for the caller to fail), running
     * {@code whileHeld} under the lock first if there are any, so that no write queues after it.
     */
    List<Waiting> expire(Runnable whileHeld) {
        lock.lock();
        try {
            timeoutArmed = false;
            if (noSpace.isEmpty()) {
                return List.of();
            }
            whileHeld.run();
            return take();
        } finally {
            lock.unlock();
        }
    }

    /** Takes every queued write (the pool grew, a commit freed blocks, or the pool closes). */
    List<Waiting> drain() {
        lock.lock();
        try {
            return take();
        } finally {
            lock.unlock();
        }
    }

    /** Caller holds the lock. */
    private List<Waiting> take() {
        List<Waiting> all = noSpace;
        noSpace = new ArrayList<>();
        return all;
    }

    /** Writes waiting for data space. */
    int size() {
        lock.lock();
        try {
            return noSpace.size();
        } finally {
            lock.unlock();
        }
    }

    /* ---- Metadata reservations ---- */

    /**
     * The metadata could not cover a write's reservation while other writes' reservations were
     * held: queue it until one is given back. Checking {@code released} (as
     * {@link PoolMetadata#reservationsReleased} read before the allocation) after queueing,
     * against {@link #reservationReleased} setting the counter before reading
     * {@link #reservationWaiters}, leaves no wake-up lost (both volatile).
     */
    void awaitReservations(Runnable retry, long released) {
        lock.lock();
        try {
            awaitingReservations.add(retry);
            reservationWaiters = true;
        } finally {
            lock.unlock();
        }
        if (metadata.reservationsReleased() != released) {
            retryAwaitingReservations();
        }
    }

    /** A write inserted or abandoned its allocation, giving its metadata reservation back. */
    void reservationReleased() {
        if (reservationWaiters) {
            retryAwaitingReservations();
        }
    }

    private void retryAwaitingReservations() {
        List<Runnable> again;
        lock.lock();
        try {
            again = awaitingReservations;
            awaitingReservations = new ArrayList<>();
            reservationWaiters = false;
        } finally {
            lock.unlock();
        }
        again.forEach(Runnable::run);
    }
}
