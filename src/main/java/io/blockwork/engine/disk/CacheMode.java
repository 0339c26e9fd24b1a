package io.blockwork.engine.disk;

import io.blockwork.engine.block.Labelled;

/** Whether a disk has a volatile write cache. */
public enum CacheMode implements Labelled {
    /** Every completed write is durable; flushes complete at once. The default. */
    WRITETHROUGH,
    /** Completed writes sit in a volatile cache until a flush or FUA makes them durable. */
    WRITEBACK;

    public static CacheMode fromLabel(String label) {
        return Labelled.parse(CacheMode.class, label, "cache mode");
    }
}
