package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Deliberately broken copies of {@link OptimisticBarrier}: without {@code recheck} the fast
 * path trusts a barrier value it read before bumping pending; without {@code wake} an exit
 * that drops pending to 0 leaves a sleeping raiser asleep.
 */
final class BrokenOptimisticBarrier implements MdBarrierLincheckTest.Gate {
    private final Consumer<Bio> resume;
    private final boolean recheck;
    private final boolean wake;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicLong seq = new AtomicLong();
    private volatile int barrier;
    private final AtomicInteger pending = new AtomicInteger();
    private final ArrayDeque<Bio> parked = new ArrayDeque<>();
    private volatile Thread raiser;

    BrokenOptimisticBarrier(Consumer<Bio> resume, boolean recheck, boolean wake) {
        this.resume = resume;
        this.recheck = recheck;
        this.wake = wake;
    }

    @Override
    public boolean enter(Bio bio) {
        long s = seq.get();
        if ((s & 1) == 0 && barrier == 0) {
            pending.incrementAndGet();
            if (!recheck || seq.get() == s) {
                return true;
            }
            release();
        }
        lock.lock();
        try {
            if (barrier == 0) {
                pending.incrementAndGet();
                return true;
            }
            parked.add(bio);
            return false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void exit(Bio bio) {
        release();
    }

    private void release() {
        if (pending.decrementAndGet() == 0 && wake) {
            Thread t = raiser;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    @Override
    public void raise(long offset) {
        lock.lock();
        try {
            seq.incrementAndGet();
            barrier++;
            seq.incrementAndGet();
        } finally {
            lock.unlock();
        }
        raiser = Thread.currentThread();
        while (pending.get() != 0) {
            LockSupport.park(this);
        }
        raiser = null;
    }

    @Override
    public void lower(long offset) {
        List<Bio> resumed = List.of();
        lock.lock();
        try {
            seq.incrementAndGet();
            if (--barrier == 0 && !parked.isEmpty()) {
                resumed = List.copyOf(parked);
                parked.clear();
                pending.addAndGet(resumed.size());
            }
            seq.incrementAndGet();
        } finally {
            lock.unlock();
        }
        resumed.forEach(resume);
    }
}
