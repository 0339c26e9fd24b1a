package io.blockwork.engine.block;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Per-thread plugging, as the kernel has had since 2.6.39: while a plug is open on a thread, bios
 * it submits to request queues collect here; when the plug closes, or the thread is about to wait
 * (see {@link SyncIo}), they are sorted, adjacent ones merged into single requests, and
 * dispatched. No timer is involved, so a plugged bio can never be stranded.
 *
 * <pre>{@code
 * try (Plug plug = Plug.start()) {
 *     for (Bio b : batch) device.submit(b);
 * }   // dispatched here, merged where adjacent
 * }</pre>
 *
 * Only the outermost {@code start()} on a thread opens a plug; nested ones share it. A plug holds
 * at most {@value #MAX_HELD} bios (BLK_MAX_REQUEST_COUNT) before it dispatches on its own.
 *
 * <p>Not thread-safe by design: a plug belongs to one thread.
 */
public final class Plug implements AutoCloseable {

    static final int MAX_HELD = 32;
    private static final ThreadLocal<Plug> CURRENT = new ThreadLocal<>();
    private static final Plug NESTED = new Plug(false);

    private record Held(PlugTarget target, Bio bio, int order) {}

    private static final Comparator<Held> DISPATCH_ORDER = Comparator
            .comparingInt((Held h) -> System.identityHashCode(h.target))
            .thenComparing(h -> h.bio.op())
            .thenComparingLong(h -> h.bio.offset())
            .thenComparingInt(Held::order);

    private final boolean outermost;
    private final ArrayList<Held> held;

    private Plug(boolean outermost) {
        this.outermost = outermost;
        this.held = outermost ? new ArrayList<>() : null;
    }

    /** Opens a plug on this thread, or joins the one already open. */
    public static Plug start() {
        if (CURRENT.get() != null) {
            return NESTED;
        }
        Plug plug = new Plug(true);
        CURRENT.set(plug);
        return plug;
    }

    /** The plug open on this thread, or null. */
    public static Plug current() {
        return CURRENT.get();
    }

    /** Dispatches whatever this thread's plug holds; called before the thread blocks. */
    public static void flushCurrent() {
        Plug plug = CURRENT.get();
        if (plug != null) {
            plug.flush();
        }
    }

    /** True if {@code bio} may wait in a plug: plain reads and writes do, flush and FUA traffic does not. */
    public static boolean mayHold(Bio bio) {
        return bio.op().hasData() && !bio.preflush() && !bio.fua() && !bio.flags().sync();
    }

    /** Holds {@code bio} for {@code target}. */
    public void hold(PlugTarget target, Bio bio) {
        held.add(new Held(target, bio, held.size()));
        if (held.size() >= MAX_HELD) {
            flush();
        }
    }

    public int size() {
        return outermost ? held.size() : 0;
    }

    /**
     * Dispatches everything held, merging adjacent bios bound for the same target. Completions
     * that run inline may submit more bios into this plug; those go out too before this returns.
     */
    public void flush() {
        if (!outermost) {
            return;
        }
        while (!held.isEmpty()) {
            dispatchHeld();
        }
    }

    private void dispatchHeld() {
        List<Held> batch = new ArrayList<>(held);
        held.clear();
        batch.sort(DISPATCH_ORDER);
        int start = 0;
        for (int i = 1; i <= batch.size(); i++) {
            if (i == batch.size() || !continues(batch.get(i - 1), batch.get(i))) {
                List<Bio> run = new ArrayList<>(i - start);
                for (int j = start; j < i; j++) {
                    run.add(batch.get(j).bio);
                }
                batch.get(start).target.dispatchRun(run);
                start = i;
            }
        }
    }

    private static boolean continues(Held prev, Held next) {
        return prev.target == next.target
                && prev.bio.op() == next.bio.op()
                && prev.bio.end() == next.bio.offset();
    }

    @Override
    public void close() {
        if (!outermost) {
            return;
        }
        try {
            flush();
        } finally {
            CURRENT.remove();
        }
    }
}
