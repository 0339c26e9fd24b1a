package io.blockwork.engine.md;

import io.blockwork.engine.block.Labelled;

/**
 * How raid10's resync barrier admits normal I/O (ARCHITECTURE §5, seed 001). raid1 always uses its
 * bucketed barrier ({@link BucketBarrier}); the choice is recorded but has no effect there.
 */
public enum BarrierStrategy implements Labelled {
    /** Linux 6.1: a sequence read and an atomic pending count; no lock, no wake-up unless someone sleeps. */
    OPTIMISTIC,
    /** Before seed 001: every I/O takes the resync lock, and completions wake the wait queue. */
    LOCKED;

    public static BarrierStrategy fromLabel(String text) {
        return Labelled.find(BarrierStrategy.class, text).orElseThrow(() ->
                new MdArgumentException("strategies.barrier", Labelled.unknown(BarrierStrategy.class, text, "barrier strategy")));
    }
}
