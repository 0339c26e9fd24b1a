package io.blockwork.engine.dm.snapshot;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * A thread's exception copies: starts them without letting them nest on one stack (a
 * trampoline), and keeps the buffers of the copies that ended on it for its next ones.
 *
 * <p>Nesting. On devices that complete at once a copy's completion releases the write that waited
 * for it, whose next chunk starts a copy, whose completion... all on one stack: a 1 MiB write to
 * an origin with 4 KiB chunks overflowed it. A copy started while this thread is already starting
 * one waits here until that one's stack has unwound, then runs on the same thread.
 *
 * <p>Buffers. A new heap buffer per copy (a chunk allocated and zeroed, then filled by the read)
 * was the largest item of issue 20's fourth-round profile under both strategies (8 workers, about
 * a third of the execution samples). A copy whose write completes on the thread that started it
 * (every copy, on devices that complete at once) leaves its buffer here for the thread's next copy;
 * one that completes elsewhere leaves it to the garbage collector, as before. A completed write
 * leaves its buffer to its submitter, as a bio's pages.
 *
 * <p>One of these per thread, made once (this is on every first write to a chunk); everything in
 * it is confined to its thread.
 */
final class CopyStarts {

    private static final ThreadLocal<CopyStarts> ON_THREAD = ThreadLocal.withInitial(CopyStarts::new);
    /** Spare buffers a thread keeps; inline copies need one at a time, the trampoline's queue a few. */
    private static final int SPARE_BUFFERS = 4;

    private final Thread owner = Thread.currentThread();
    /** Copies asked for while {@link #running}. */
    private final ArrayDeque<Consumer<CopyStarts>> queued = new ArrayDeque<>();
    private boolean running;
    /** Buffers of ended copies, any length (a copy takes one of its own length). */
    private final ArrayDeque<MemorySegment> spare = new ArrayDeque<>(SPARE_BUFFERS);

    private CopyStarts() {}

    /**
     * Runs {@code start} now, or after the copy this thread is starting, if it is starting one;
     * {@code start} gets this thread's copy state, for {@link #buffer}.
     */
    static void run(Consumer<CopyStarts> start) {
        CopyStarts t = ON_THREAD.get();
        if (t.running) {
            t.queued.add(start);
            return;
        }
        t.running = true;
        try {
            for (Consumer<CopyStarts> next = start; next != null; next = t.queued.poll()) {
                next.accept(t);
            }
        } finally {
            t.running = false;
            t.queued.clear(); // as before: what a failing start left queued goes with it
        }
    }

    /** A buffer of {@code bytes} for a copy this thread starts: a spare one, or a new one. */
    MemorySegment buffer(int bytes) {
        MemorySegment b = spare.pollLast();
        return b != null && b.byteSize() == bytes ? b : MemorySegment.ofArray(new byte[bytes]);
    }

    /**
     * The copy that took {@code buffer} from here has ended (its last bio completed): the buffer
     * is kept for this thread's next copy if that completion runs on this thread.
     */
    void recycle(MemorySegment buffer) {
        if (Thread.currentThread() == owner && spare.size() < SPARE_BUFFERS) {
            spare.addLast(buffer);
        }
    }
}
