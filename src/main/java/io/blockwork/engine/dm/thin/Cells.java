package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.Bio;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pool's bio prison (the kernel's {@code dm_bio_prison}): one cell per virtual block whose
 * mapping is being made or changed (a block provisioned, sharing broken, a discard). The holder
 * does its work; bios for the same block wait in the cell and are mapped again when it is
 * released, so they see the new mapping.
 *
 * <p>Each cell's waiter list is guarded by the map's per-key locking ({@code compute}); nothing
 * else is done under it.
 */
final class Cells {

    /** A bio waiting for a cell, and the thin device that must map it again. */
    record Waiter(Thin thin, Bio bio) {}

    private final ConcurrentHashMap<Long, List<Waiter>> cells = new ConcurrentHashMap<>();

    /** The cell key of a virtual block: 24 bits of device id, 40 of block. */
    static long key(long dev, long vblock) {
        return dev << 40 | vblock;
    }

    /** Takes the cell (true), or queues {@code bio} in it if it is held (false). */
    boolean lockOrWait(long key, Thin thin, Bio bio) {
        boolean[] took = {false};
        cells.compute(key, (k, waiters) -> {
            if (waiters == null) {
                took[0] = true;
                return new ArrayList<>(0);
            }
            waiters.add(new Waiter(thin, bio));
            return waiters;
        });
        return took[0];
    }

    /** Queues {@code bio} if the cell is held (true); false, touching nothing, if it is free. */
    boolean waitIfHeld(long key, Thin thin, Bio bio) {
        return cells.computeIfPresent(key, (k, waiters) -> {
            waiters.add(new Waiter(thin, bio));
            return waiters;
        }) != null;
    }

    /** Releases a held cell; returns the bios that waited in it, to map again. */
    List<Waiter> release(long key) {
        List<Waiter> w = cells.remove(key);
        if (w == null) {
            throw new IllegalStateException("cell " + Long.toHexString(key) + " is not held");
        }
        return w;
    }

    int held() {
        return cells.size();
    }
}
