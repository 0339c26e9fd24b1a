package io.blockwork.engine.dm.snapshot;

import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * {@code fine} (seed 004, the default): the snapshot's state under a read-write lock, the
 * exception tables under per-bucket locks, COW allocation under its own small lock.
 *
 * <p>Bucket locks are striped: bucket {@code b} of a table uses lock {@code b mod L}, with
 * {@code L = min(buckets, }{@value #MAX_STRIPES}{@code )}, so a 2 GiB origin's 262144 buckets do
 * not cost 262144 lock objects. A thread holds at most one complete and one pending stripe, always
 * in that order, so striping adds no deadlock.
 */
final class FineLocking implements SnapshotLocking {

    static final int MAX_STRIPES = 4096;

    /** Guards the snapshot's state fields: valid, overflowed, owner, merge range. */
    private final ReentrantReadWriteLock state = new ReentrantReadWriteLock();
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
        state.readLock().lock();
        complete[completeBucket & completeMask].lock();
        pending[pendingBucket & pendingMask].lock();
    }

    @Override
    public void unlockChunk(int completeBucket, int pendingBucket) {
        pending[pendingBucket & pendingMask].unlock();
        complete[completeBucket & completeMask].unlock();
        state.readLock().unlock();
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
        state.writeLock().lock();
    }

    @Override
    public void unlockState() {
        state.writeLock().unlock();
    }
}
