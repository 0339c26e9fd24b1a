package io.blockwork.engine.disk;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;

/**
 * A disk's queue-depth limit: at most {@code limit} requests in service; later ones wait in FIFO
 * order and start as earlier ones complete. With no limit, admission costs nothing.
 */
final class QueueSlots {

    private volatile int limit;
    @GuardedBy("this")
    private int busy;
    @GuardedBy("this")
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();

    QueueSlots(int limit) {
        this.limit = limit;
    }

    int limit() {
        return limit;
    }

    /** A new limit applies to requests admitted from now on. */
    void limit(int newLimit) {
        this.limit = newLimit;
        drain();
    }

    /**
     * Admits a request. It starts now (holding a slot to {@link #release} unless there is no
     * limit), or waits, and {@code start} runs when a slot frees up.
     */
    Admission admit(Runnable start) {
        if (limit == 0) {
            return Admission.UNLIMITED;
        }
        synchronized (this) {
            if (busy < limit) {
                busy++;
                return Admission.SLOT;
            }
            waiting.add(start);
            return Admission.QUEUED;
        }
    }

    /** Returns a slot; starts the oldest waiting request in it, if any. */
    void release() {
        Runnable next;
        synchronized (this) {
            next = waiting.poll();
            if (next == null) {
                busy--;
                return;
            }
        }
        next.run();
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (this) {
                int l = limit;
                if (waiting.isEmpty() || (l != 0 && busy >= l)) {
                    return;
                }
                next = waiting.poll();
                busy++;
            }
            next.run();
        }
    }

    synchronized int waitingCount() {
        return waiting.size();
    }

    enum Admission {
        /** Start now; no slot to return. */
        UNLIMITED,
        /** Start now; return the slot on completion. */
        SLOT,
        /** Queued: it will start (holding a slot) when one frees up. */
        QUEUED
    }
}
