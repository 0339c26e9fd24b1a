package io.blockwork.engine.md;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.Bio;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * raid10's barrier since Linux 6.1 (Yu Kuai, seed 001): the I/O fast path takes no lock and wakes
 * no one unless someone sleeps.
 *
 * <p>Design. {@link #seq} is a sequence counter that writers (raise, lower, and the slow path)
 * make odd while they change {@link #barrier}. A submitter reads the sequence, sees no barrier,
 * bumps {@link #pending}, and re-reads the sequence: unchanged means no raise slipped in between,
 * because a raiser sets the barrier <em>before</em> it reads {@code pending} (all these accesses
 * are sequentially consistent, so one of the two always sees the other). If the sequence moved,
 * the submitter undoes its increment and takes the locked slow path. The undo, like every exit,
 * wakes the raiser only if the count reached 0 <em>and</em> a raiser is actually waiting; without
 * that wake a raiser could sleep forever on a count that dropped to 0 behind its back (Kuai's v2
 * stress-test hang).
 */
final class OptimisticBarrier implements ResyncBarrier {

    private final Consumer<Bio> resume;
    /** The sequence lock's writer side: guards {@link #barrier} changes, {@link #parked}. */
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicLong seq = new AtomicLong();
    /** Raised windows; written under {@link #lock} inside a {@link #seq} write section. */
    private volatile int barrier;
    private final AtomicInteger pending = new AtomicInteger();
    /** Bios that met a raised barrier (md's nr_waiting). */
    @GuardedBy("lock")
    private final ArrayDeque<Bio> parked = new ArrayDeque<>();
    /** The thread sleeping in {@link #raise}, or null: the "wq_has_sleeper" test. */
    private volatile Thread raiser;

    OptimisticBarrier(Consumer<Bio> resume) {
        this.resume = resume;
    }

    @Override
    public boolean enter(Bio bio) {
        long s = seq.get();
        if ((s & 1) == 0 && barrier == 0) {
            pending.incrementAndGet();
            if (seq.get() == s) {
                return true;
            }
            release();
        }
        return enterSlow(bio);
    }

    private boolean enterSlow(Bio bio) {
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
        if (pending.decrementAndGet() == 0) {
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
        // Parked bios were admitted by the lower that released them, so they are in pending too:
        // waiting for pending gives them their turn, as md's wait for nr_waiting == 0 does.
        raiser = Thread.currentThread();
        try {
            while (pending.get() != 0) {
                LockSupport.park(this);
            }
        } finally {
            raiser = null;
        }
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

    @Override
    public int pending() {
        return pending.get();
    }
}
