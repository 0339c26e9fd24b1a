package io.blockwork.engine.dm.snapshot;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Chunks with I/O in flight that a completion must wait for (the kernel's tracked chunks): a
 * snapshot read sent to the origin because the chunk is not copied yet, or a write to the COW
 * while a merge runs. A pending exception's completion must not let origin writes through (and a
 * merge must not copy a chunk) while such I/O is still reading or writing it; instead of
 * sleeping until it drains, as the kernel does, the completion leaves its continuation here and
 * the last tracked I/O to end runs it.
 *
 * <p>A chunk is tracked with its exception-table bucket locked, and a completion looks here after
 * inserting the exception under the same lock, so a read either was tracked before the exception
 * existed (and is waited for) or found the exception (and went to the COW).
 */
final class ChunkTracker {

    /** Mutated only inside {@link ConcurrentHashMap#compute}, which runs atomically per key. */
    private static final class Entry {
        int count;
        Runnable onDrained;
    }

    private final ConcurrentHashMap<Long, Entry> tracked = new ConcurrentHashMap<>();

    void track(long chunk) {
        tracked.compute(chunk, (k, e) -> {
            Entry t = e == null ? new Entry() : e;
            t.count++;
            return t;
        });
    }

    void untrack(long chunk) {
        Runnable[] then = new Runnable[1];
        tracked.compute(chunk, (k, e) -> {
            if (e == null) {
                throw new IllegalStateException("chunk " + chunk + " is not tracked");
            }
            if (--e.count > 0) {
                return e;
            }
            then[0] = e.onDrained;
            return null;
        });
        if (then[0] != null) {
            then[0].run();
        }
    }

    boolean isTracked(long chunk) {
        return tracked.containsKey(chunk);
    }

    /** Runs {@code then} once no I/O is tracked on {@code chunk}: now, or when the last one ends. */
    void whenDrained(long chunk, Runnable then) {
        boolean[] now = new boolean[1];
        tracked.compute(chunk, (k, e) -> {
            if (e == null) {
                now[0] = true;
                return null;
            }
            Runnable before = e.onDrained;
            e.onDrained = before == null ? then : () -> {
                before.run();
                then.run();
            };
            return e;
        });
        if (now[0]) {
            then.run();
        }
    }
}
