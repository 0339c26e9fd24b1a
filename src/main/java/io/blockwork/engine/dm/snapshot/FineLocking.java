package io.blockwork.engine.dm.snapshot;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.StampedLock;

/**
 * {@code fine} (seed 004, the default): the snapshot's state under a read-write lock, the
 * exception tables under per-bucket locks, COW allocation under its own small lock.
 *
 * <p>Bucket locks are striped: bucket {@code b} of a table uses lock {@code b mod L}, with
 * {@code L = min(buckets, }{@value #MAX_STRIPES}{@code )}, so a 2 GiB origin's 262144 buckets do
 * not cost 262144 lock objects. A thread holds at most one complete and one pending stripe, always
 * in that order, so striping adds no deadlock.
 *
 * <p>The state lock is striped for readers, as the kernel's per-CPU rw-semaphores are: a chunk
 * lock takes the state stripe of its complete bucket shared, and {@link #lockState} takes every
 * stripe exclusively, in index order (state changes are rare: overflow, invalidation, a merge
 * run). One shared reader count that every writer updated three times a write was two fifths of
 * {@code fine}'s samples on two cores (issue 20's profile of the persistent-store table). Each
 * stripe is a {@link StampedLock} (through its lock views): taking it shared is one atomic add,
 * like {@code down_read}, where a {@code ReentrantReadWriteLock} also counts each reader's holds
 * in a thread-local. It is not reentrant, and need not be: no path takes a chunk or the state
 * while it holds one (completions that run inline start after the unlock).
 */
final class FineLocking implements SnapshotLocking {

    static final int MAX_STRIPES = 4096;

    /** Reader stripes of the state lock; a power of two. */
    static final int STATE_STRIPES = 64;

    /**
     * Together guard the snapshot's state fields (valid, overflowed, owner, merge range): a reader
     * holds one stripe shared, a writer every stripe exclusively.
     */
    private final Lock[] stateShared = new Lock[STATE_STRIPES];
    private final Lock[] stateExclusive = new Lock[STATE_STRIPES];
    /** Stripe {@code i} guards every complete-table bucket {@code b} with {@code b mod L == i}. */
    private final ReentrantLock[] complete;
    /** Stripe {@code i} guards every pending-table bucket {@code b} with {@code b mod L == i}, and its pending exceptions' bucket fields. */
    private final ReentrantLock[] pending;
    /** Guards the store's COW allocation and the exception start sequence (pe_allocation_lock). */
    private final ReentrantLock allocation = new ReentrantLock();
    private final int completeMask;
    private final int pendingMask;

    FineLocking(int completeBuckets, int pendingBuckets) {
        complete = stripes(completeBuckets);
        pending = stripes(pendingBuckets);
        completeMask = complete.length - 1;
        pendingMask = pending.length - 1;
        for (int i = 0; i < STATE_STRIPES; i++) {
            StampedLock stripe = new StampedLock();
            stateShared[i] = stripe.asReadLock();
            stateExclusive[i] = stripe.asWriteLock();
        }
    }

    private static ReentrantLock[] stripes(int buckets) {
        ReentrantLock[] locks = new ReentrantLock[Math.min(buckets, MAX_STRIPES)];
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new ReentrantLock();
        }
        return locks;
    }

    @Override
    public Kind kind() {
        return Kind.FINE;
    }

    @Override
    public void lockChunk(int completeBucket, int pendingBucket) {
        stateShared[completeBucket & (STATE_STRIPES - 1)].lock();
        complete[completeBucket & completeMask].lock();
        pending[pendingBucket & pendingMask].lock();
    }

    @Override
    public void unlockChunk(int completeBucket, int pendingBucket) {
        pending[pendingBucket & pendingMask].unlock();
        complete[completeBucket & completeMask].unlock();
        stateShared[completeBucket & (STATE_STRIPES - 1)].unlock();
    }

    @Override
    public void unlockForAllocation(int completeBucket, int pendingBucket) {
        pending[pendingBucket & pendingMask].unlock();
        complete[completeBucket & completeMask].unlock();
    }

    @Override
    public void relockAfterAllocation(int completeBucket, int pendingBucket) {
        complete[completeBucket & completeMask].lock();
        pending[pendingBucket & pendingMask].lock();
    }

    @Override
    public void lockAllocation() {
        allocation.lock();
    }

    @Override
    public void unlockAllocation() {
        allocation.unlock();
    }

    @Override
    public void lockState() {
        for (Lock stripe : stateExclusive) {
            stripe.lock(); // in index order, the only order anyone takes more than one
        }
    }

    @Override
    public void unlockState() {
        for (int i = STATE_STRIPES - 1; i >= 0; i--) {
            stateExclusive[i].unlock();
        }
    }
}
