package io.blockwork.engine.md;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.Bio;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * raid10's barrier before seed 001, kept for the benchmark: every I/O takes the resync lock to be
 * admitted, and every completion that drops the pending count to 0 calls wake-up, which takes the
 * wait-queue lock whether or not anyone sleeps. With one I/O in flight per thread that is every
 * I/O, and all submitters bounce the same two cache lines.
 */
final class LockedBarrier implements ResyncBarrier {

    private final Consumer<Bio> resume;
    /** md's resync_lock: guards {@link #barrier} and {@link #parked}. */
    private final ReentrantLock lock = new ReentrantLock();
    /** md's wait_barrier queue; its lock is {@link #lock}. */
    private final Condition changed = lock.newCondition();
    @GuardedBy("lock")
    private int barrier;
    private final AtomicInteger pending = new AtomicInteger();
    @GuardedBy("lock")
    private final ArrayDeque<Bio> parked = new ArrayDeque<>();

    LockedBarrier(Consumer<Bio> resume) {
        this.resume = resume;
    }

    @Override
    public boolean enter(Bio bio) {
        lock.lock();
        try {
            if (barrier > 0) {
                parked.add(bio);
                return false;
            }
            pending.incrementAndGet();
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void exit(Bio bio) {
        if (pending.decrementAndGet() == 0) {
            wakeUp();
        }
    }

    private void wakeUp() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void raise(long offset) {
        lock.lock();
        try {
            barrier++;
            while (pending.get() != 0) {
                changed.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void lower(long offset) {
        List<Bio> resumed = List.of();
        lock.lock();
        try {
            if (--barrier == 0 && !parked.isEmpty()) {
                resumed = List.copyOf(parked);
                parked.clear();
                pending.addAndGet(resumed.size());
            }
        } finally {
            lock.unlock();
        }
        wakeUp();
        resumed.forEach(resume);
    }

    @Override
    public int pending() {
        return pending.get();
    }
}
