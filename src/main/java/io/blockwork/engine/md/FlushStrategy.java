package io.blockwork.engine.md;

import io.blockwork.engine.block.Labelled;

/** How an array handles PREFLUSH and empty flushes (ARCHITECTURE §5, seed 000). */
public enum FlushStrategy implements Labelled {
    /** Linux 6.12: a flush goes to every active member at once, beside the data; members merge. */
    FANOUT,
    /** Before seed 000: one array flush at a time; each waits its turn for a full round. */
    SERIAL;

    public static FlushStrategy fromLabel(String text) {
        return Labelled.find(FlushStrategy.class, text).orElseThrow(() ->
                new MdArgumentException("strategies.flush", Labelled.unknown(FlushStrategy.class, text, "flush strategy")));
    }
}
