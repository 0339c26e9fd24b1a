package io.blockwork.engine.dm.snapshot;

import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code fine} (seed 004, the default): the exception tables under striped bucket locks, the
 * snapshot's state read-mostly, COW allocation under its own small lock.
 *
 * <p>One lock per bucket group ({@link PendingTable#groupsFor}: up to 4096, eight pending buckets
 * each): group {@code g} guards every complete-table bucket {@code b} with {@code b mod G == g}
 * and every pending bucket of the same chunks (the pending table's hash keeps each of its buckets
 * inside one group). A chunk's I/O path takes its group's lock and nothing else; the kernel takes
 * two bit locks, a complete and a pending bucket's, and stripes of each cost two lock pairs a
 * pass here.
 *
 * <p>The group locks are also the state lock: holding one is holding the state shared, and
 * {@link #lockState} takes all of them, in index order (state changes are rare: overflow,
 * invalidation, a merge run's start and end; a bio through the merged view takes only its chunk's
 * lock), so the state's writer excludes every chunk path as the kernel's {@code down_write} does.
 * This is the kernel's rw-semaphore as a per-CPU (brlock) one, with the read side folded into the
 * bucket lock the path takes anyway.
 *
 * <p>Issue 20's profiles led here: one shared reader count for the state was two fifths of
 * {@code fine}'s samples on two cores; 64 reader stripes fixed that, but then a pass took three
 * locks (state stripe, complete stripe, pending stripe) against {@code global}'s one, three passes
 * a write (map, completion, the released write's second pass), and dropped and retook two of
 * them around the pending exception's allocation: with one writer, where nothing contends,
 * {@code fine} spent 12 to 17 % more CPU a write than {@code global}. Why so many groups: with
 * eight writers on two cores a lock holder is sometimes descheduled, and every writer whose chunk
 * falls in its group waits out the time slice; with 64 groups that was nearly every writer (JFR:
 * 186 parks of 10 ms or more in {@code lockChunk} at eight workers, P table); with 4096, the
 * odds of the complete stripes before, a writer doing a few hundred writes in a time slice meets
 * the held group about one time in ten (an estimate, not a measurement).
 */
final class FineLocking implements SnapshotLocking {

    /**
     * Group {@code g} guards the complete buckets {@code b} with {@code b mod groups == g}, the
     * pending buckets of their chunks with their pending exceptions' bucket fields, and, all
     * groups together, the snapshot's state fields (valid, overflowed, owner, merge range).
     */
    private final ReentrantLock[] groups;
    /** Guards the store's COW allocation and the exception start sequence (pe_allocation_lock). */
    private final ReentrantLock allocation = new ReentrantLock();

    FineLocking(int completeBuckets, int pendingBuckets) {
        groups = new ReentrantLock[PendingTable.groupsFor(completeBuckets)];
        for (int i = 0; i < groups.length; i++) {
            groups[i] = new ReentrantLock();
        }
    }

    @Override
    public Kind kind() {
        return Kind.FINE;
    }

    @Override
    public void lockChunk(int completeBucket) {
        groups[PendingTable.group(completeBucket, groups.length)].lock();
    }

    @Override
    public void unlockChunk(int completeBucket) {
        groups[PendingTable.group(completeBucket, groups.length)].unlock();
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
        for (ReentrantLock group : groups) {
            group.lock(); // in index order, the only order anyone takes more than one
        }
    }

    @Override
    public void unlockState() {
        for (int i = groups.length - 1; i >= 0; i--) {
            groups[i].unlock();
        }
    }
}
