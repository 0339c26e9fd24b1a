package io.blockwork.engine.dm.snapshot;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The origin registry's read-write lock (the kernel's {@code _origins_lock}), striped by thread
 * for readers: every origin write takes it shared, twice when it waited for a copy, and changes
 * to a snapshot list (a snapshot registered or gone) take it exclusively, rarely. One
 * {@link ReentrantReadWriteLock} made every writer thread update one shared reader count, and
 * once two threads read at once, its per-thread hold counts went through a thread-local; issue
 * 20's third round moved that cost out of {@code fine}'s way at eight workers. A reader takes
 * the stripe of its thread, where it is usually the only reader (the lock's first-reader fast
 * path); a writer takes every stripe, in index order. Reentrant as before: an origin write
 * released by a copy it started runs again on the same thread, inside its first pass.
 */
final class RegistryLock {

    /** A power of two. */
    private static final int STRIPES = 64;

    /** Together guard every origin's snapshot list: a reader holds its thread's stripe, a writer all of them. */
    private final ReentrantReadWriteLock[] stripes = new ReentrantReadWriteLock[STRIPES];

    RegistryLock() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantReadWriteLock();
        }
    }

    /** Takes the calling thread's stripe shared and returns it, for the same thread to unlock. */
    Lock lockShared() {
        Lock shared = stripes[(int) Thread.currentThread().threadId() & (STRIPES - 1)].readLock();
        shared.lock();
        return shared;
    }

    void lockExclusive() {
        for (ReentrantReadWriteLock stripe : stripes) {
            stripe.writeLock().lock(); // in index order, the only order anyone takes more than one
        }
    }

    void unlockExclusive() {
        for (int i = STRIPES - 1; i >= 0; i--) {
            stripes[i].writeLock().unlock();
        }
    }
}
