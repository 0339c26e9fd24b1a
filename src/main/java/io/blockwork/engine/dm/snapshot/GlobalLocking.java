package io.blockwork.engine.dm.snapshot;

import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code global} (before seed 004): one lock per snapshot guards everything, held across the
 * whole map path, pending-exception allocation and COW chunk allocation included, and across the
 * table updates of completions. Kept so the benchmark can show what seed 004 bought.
 */
final class GlobalLocking implements SnapshotLocking {

    /** Guards the snapshot's state, both exception tables, pending exceptions and COW allocation. */
    private final ReentrantLock lock = new ReentrantLock();

    @Override
    public Kind kind() {
        return Kind.GLOBAL;
    }

    @Override
    public void lockChunk(int completeBucket) {
        lock.lock();
    }

    @Override
    public void unlockChunk(int completeBucket) {
        lock.unlock();
    }

    @Override
    public void lockAllocation() {
        // covered by the one lock
    }

    @Override
    public void unlockAllocation() {
        // covered by the one lock
    }

    @Override
    public void lockState() {
        lock.lock();
    }

    @Override
    public void unlockState() {
        lock.unlock();
    }
}
