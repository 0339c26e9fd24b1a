package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;

/**
 * How an array serves an empty FLUSH (seed 000); chosen per array by {@link FlushStrategy}.
 * Either way a flush reaches every active member (in-sync, rebuilding, replacements; never
 * spares), and a member whose flush fails is marked faulty: the flush still succeeds if the array
 * keeps every block on members whose flushes worked. A PREFLUSH write is the core's
 * ({@link io.blockwork.engine.block.Preflush}): this flush first, then its data.
 */
sealed interface ArrayFlush permits FanoutFlush, SerialFlush {

    /** Handles an empty FLUSH. */
    void submit(Bio bio);

    static ArrayFlush create(FlushStrategy strategy, MdArray array) {
        return switch (strategy) {
            case FANOUT -> new FanoutFlush(array);
            case SERIAL -> new SerialFlush(array);
        };
    }
}
