package io.blockwork.engine.dm.thin;

import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lets a change wait for the I/O that might still use what it changes (the kernel's
 * {@code dm_deferred_set}): each bio sent to a data block enters the current epoch and exits when
 * it completes; {@link #afterCurrent} runs its work once every bio that entered before it has
 * exited, without waiting for bios that enter later.
 *
 * <p>Used before a mapping is changed or removed (a discard, a write that breaks sharing): the
 * old data block may become someone else's to write or reuse, so reads and writes that found it
 * must have finished. Such changes hold the virtual block's cell first, and the I/O path enters
 * an epoch before it checks for a cell, so each bio is either waited for or sees the cell (the
 * counters and the cell map are both sequentially consistent: a Dekker pair).
 *
 * <p>Design notes. A ring of 64 epochs, as in the kernel. The I/O path takes no lock: entering is
 * an atomic increment of the current epoch's counter (checked again against {@link #current}, so a
 * bio never counts in an epoch the sweeper has passed), exiting a decrement, and only an exit that
 * empties an epoch while work waits ({@link #pending}) takes {@link #lock} to sweep. A change adds
 * its work and raises {@code pending} under the lock and then sweeps once itself, so an exit that
 * missed the flag cannot strand it; when nothing is in flight (every older epoch swept, the
 * current one empty) a change runs its work at once without the lock. When the next epoch is still busy, new I/O joins the current
 * one and the work waits a little longer. Work runs outside the lock, on the thread whose exit
 * released it (or the caller's, if nothing was in flight).
 */
final class IoEpochs {

    private static final int SIZE = 64;
    /** Counters 16 ints (64 bytes) apart, so epochs do not share a cache line. */
    private static final int STRIDE = 16;

    private final AtomicIntegerArray counts = new AtomicIntegerArray(SIZE * STRIDE);
    /** Written under {@link #lock}; read by the I/O path. */
    private volatile int current;
    /** Written under {@link #lock}: some epoch has work waiting. */
    private volatile boolean pending;

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}: work waiting for each epoch (and those before it) to drain. */
    private final List<List<Runnable>> work = new ArrayList<>(SIZE);
    /** Written under {@link #lock}: the oldest epoch that may still have I/O or work; read by {@link #afterCurrent}'s fast path. */
    private volatile int sweeper;

    IoEpochs() {
        for (int i = 0; i < SIZE; i++) {
            work.add(new ArrayList<>(0));
        }
    }

    /** A bio starts using a data block; pass the result to {@link #exit} when it completes. */
    int enter() {
        while (true) {
            int e = current;
            counts.incrementAndGet(e * STRIDE);
            // The caller's next step reads the cell map (acquire reads): keep it after the increment.
            VarHandle.fullFence();
            if (current == e) {
                return e;
            }
            exit(e); // the epoch closed meanwhile: count in the new one
        }
    }

    void exit(int epoch) {
        if (counts.decrementAndGet(epoch * STRIDE) == 0 && pending) {
            run(sweepLocked());
        }
    }

    /** Runs {@code r} once every bio that entered before this call has exited: at once if none is in flight. */
    void afterCurrent(Runnable r) {
        // Nothing in flight: every older epoch is swept and the current one is empty, so no bio
        // that entered before this call (and so might have missed the caller's cell) is left. A
        // bio entering now sees the cell. Runs at once without the lock, as for a break of
        // sharing while no read is in flight.
        int c = current;
        if (sweeper == c && counts.get(c * STRIDE) == 0) {
            r.run();
            return;
        }
        List<Runnable> ready;
        lock.lock();
        try {
            work.get(current).add(r);
            int next = (current + 1) % SIZE;
            if (counts.get(next * STRIDE) == 0 && next != sweeper) {
                current = next;
            }
            pending = true;
            ready = sweep();
        } finally {
            lock.unlock();
        }
        run(ready);
    }

    private List<Runnable> sweepLocked() {
        lock.lock();
        try {
            return sweep();
        } finally {
            lock.unlock();
        }
    }

    /** Caller holds {@link #lock}: the work of drained epochs, oldest first. */
    private List<Runnable> sweep() {
        List<Runnable> ready = null;
        while (sweeper != current && counts.get(sweeper * STRIDE) == 0) {
            ready = take(sweeper, ready);
            sweeper = (sweeper + 1) % SIZE;
        }
        if (sweeper == current && counts.get(current * STRIDE) == 0) {
            ready = take(current, ready);
        }
        boolean any = false;
        for (int i = sweeper; ; i = (i + 1) % SIZE) {
            any |= !work.get(i).isEmpty();
            if (i == current) {
                break;
            }
        }
        pending = any;
        return ready;
    }

    private List<Runnable> take(int epoch, List<Runnable> into) {
        List<Runnable> w = work.get(epoch);
        if (w.isEmpty()) {
            return into;
        }
        List<Runnable> out = into == null ? new ArrayList<>() : into;
        out.addAll(w);
        w.clear();
        return out;
    }

    private static void run(List<Runnable> ready) {
        if (ready != null) {
            ready.forEach(Runnable::run);
        }
    }
}
