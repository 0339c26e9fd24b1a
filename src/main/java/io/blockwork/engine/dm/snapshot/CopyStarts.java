package io.blockwork.engine.dm.snapshot;

import java.util.ArrayDeque;

/**
 * Starts exception copies without letting them nest on one stack (a trampoline). On devices that
 * complete at once a copy's completion releases the write that waited for it, whose next chunk
 * starts a copy, whose completion... all on one stack: a 1 MiB write to an origin with 4 KiB
 * chunks overflowed it. A copy started while this thread is already starting one waits here until
 * that one's stack has unwound, then runs on the same thread. One queue per thread, made once
 * (this is on every first write to a chunk).
 */
final class CopyStarts {

    private static final ThreadLocal<CopyStarts> ON_THREAD = ThreadLocal.withInitial(CopyStarts::new);

    /** Thread-confined: copies asked for while {@link #running}. */
    private final ArrayDeque<Runnable> queued = new ArrayDeque<>();
    private boolean running;

    private CopyStarts() {}

    /** Runs {@code start} now, or after the copy this thread is starting, if it is starting one. */
    static void run(Runnable start) {
        CopyStarts t = ON_THREAD.get();
        if (t.running) {
            t.queued.add(start);
            return;
        }
        t.running = true;
        try {
            for (Runnable next = start; next != null; next = t.queued.poll()) {
                next.run();
            }
        } finally {
            t.running = false;
            t.queued.clear(); // as before: what a failing start left queued goes with it
        }
    }
}
