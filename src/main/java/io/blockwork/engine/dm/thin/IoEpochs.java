package io.blockwork.engine.dm.thin;

import java.util.ArrayList;
import java.util.List;
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
 * an epoch before it checks for a cell, so each bio is either waited for or sees the cell.
 *
 * <p>A ring of 64 epochs, as in the kernel; when the next epoch is still busy, new I/O joins the
 * current one and the work waits a little longer. {@link #lock} is a leaf; work runs outside it,
 * on the thread whose exit released it (or the caller's, if nothing was in flight).
 */
final class IoEpochs {

    private static final int SIZE = 64;

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}. */
    private final int[] counts = new int[SIZE];
    /** Guarded by {@link #lock}: work waiting for each epoch (and those before it) to drain. */
    private final List<List<Runnable>> work = new ArrayList<>(SIZE);
    /** Guarded by {@link #lock}. */
    private int current;
    /** Guarded by {@link #lock}: the oldest epoch that may still have I/O or work. */
    private int sweeper;

    IoEpochs() {
        for (int i = 0; i < SIZE; i++) {
            work.add(new ArrayList<>(0));
        }
    }

    /** A bio starts using a data block; pass the result to {@link #exit} when it completes. */
    int enter() {
        lock.lock();
        try {
            counts[current]++;
            return current;
        } finally {
            lock.unlock();
        }
    }

    void exit(int epoch) {
        List<Runnable> ready;
        lock.lock();
        try {
            counts[epoch]--;
            ready = sweep();
        } finally {
            lock.unlock();
        }
        run(ready);
    }

    /** Runs {@code r} once every bio that entered before this call has exited: at once if none is in flight. */
    void afterCurrent(Runnable r) {
        lock.lock();
        try {
            if (sweeper != current || counts[current] != 0) {
                work.get(current).add(r);
                int next = (current + 1) % SIZE;
                if (counts[next] == 0 && next != sweeper) {
                    current = next;
                }
                return;
            }
        } finally {
            lock.unlock();
        }
        r.run();
    }

    /** Caller holds {@link #lock}: the work of drained epochs, oldest first. */
    private List<Runnable> sweep() {
        List<Runnable> ready = null;
        while (sweeper != current && counts[sweeper] == 0) {
            ready = take(sweeper, ready);
            sweeper = (sweeper + 1) % SIZE;
        }
        if (sweeper == current && counts[current] == 0) {
            ready = take(current, ready);
        }
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
