package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * raid1's bucketed barrier (Coly Li, Linux 4.11): the array is cut into 64 MiB units, each hashed
 * to one of 1024 buckets with its own pending and barrier counts, so a resync window only holds up
 * writes that hash to its bucket. Bios never cross a unit (the array's limits put a boundary
 * there). Only writes take the barrier: a resync or recovery window writes only to members that
 * reads do not use in that range, so reads pass freely.
 *
 * <p>Fast path, as in the kernel: bump the bucket's pending count, then (the increment is a full
 * fence) look at its barrier; only if it is raised take the lock. A raiser sets the barrier
 * first and then waits for the bucket's pending count to reach 0; the last exit wakes it, if it
 * sleeps.
 */
final class BucketBarrier implements ResyncBarrier {

    static final int UNIT_SHIFT = 26;
    static final int BUCKET_BITS = 10;
    static final int BUCKETS = 1 << BUCKET_BITS;
    private static final long GOLDEN_RATIO_64 = 0x61C8864680B583EBL;

    private final Consumer<Bio> resume;
    private final AtomicIntegerArray pending = new AtomicIntegerArray(BUCKETS);
    /** Changed under {@link #lock}; read without it on the fast path. */
    private final AtomicIntegerArray barrier = new AtomicIntegerArray(BUCKETS);
    /** Guards barrier changes and {@link #parked}. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}: per bucket, bios that met its raised barrier; created on first use. */
    @SuppressWarnings("unchecked")
    private final ArrayDeque<Bio>[] parked = new ArrayDeque[BUCKETS];
    private volatile Thread raiser;

    BucketBarrier(Consumer<Bio> resume) {
        this.resume = resume;
    }

    /** The kernel's {@code hash_long(sector >> 17, 10)}. */
    static int bucket(long offset) {
        return (int) (((offset >>> UNIT_SHIFT) * GOLDEN_RATIO_64) >>> (64 - BUCKET_BITS));
    }

    @Override
    public boolean enter(Bio bio) {
        int idx = bucket(bio.offset());
        pending.incrementAndGet(idx);
        if (barrier.get(idx) == 0) {
            return true;
        }
        release(idx);
        lock.lock();
        try {
            if (barrier.get(idx) == 0) {
                pending.incrementAndGet(idx);
                return true;
            }
            if (parked[idx] == null) {
                parked[idx] = new ArrayDeque<>();
            }
            parked[idx].add(bio);
            return false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void exit(Bio bio) {
        release(bucket(bio.offset()));
    }

    private void release(int idx) {
        if (pending.decrementAndGet(idx) == 0) {
            Thread t = raiser;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    @Override
    public void raise(long offset) {
        int idx = bucket(offset);
        lock.lock();
        try {
            barrier.incrementAndGet(idx);
        } finally {
            lock.unlock();
        }
        raiser = Thread.currentThread();
        try {
            while (pending.get(idx) != 0) {
                LockSupport.park(this);
            }
        } finally {
            raiser = null;
        }
    }

    @Override
    public void lower(long offset) {
        int idx = bucket(offset);
        List<Bio> resumed = List.of();
        lock.lock();
        try {
            if (barrier.decrementAndGet(idx) == 0 && parked[idx] != null && !parked[idx].isEmpty()) {
                resumed = List.copyOf(parked[idx]);
                parked[idx].clear();
                pending.addAndGet(idx, resumed.size());
            }
        } finally {
            lock.unlock();
        }
        resumed.forEach(resume);
    }

    @Override
    public int pending() {
        int sum = 0;
        for (int i = 0; i < BUCKETS; i++) {
            sum += pending.get(i);
        }
        return sum;
    }
}
