package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;

/**
 * How an array serves FLUSH and PREFLUSH (seed 000); chosen per array by {@link FlushStrategy}.
 * Either way a flush reaches every active member (in-sync, rebuilding, replacements; never
 * spares), the data of a PREFLUSH write goes to the personality without PREFLUSH, FUA rides on
 * the member writes, and a member whose flush fails is marked faulty: the flush still succeeds if
 * the array keeps every block on members whose flushes worked.
 */
sealed interface ArrayFlush permits FanoutFlush, SerialFlush {

    /** Handles an empty FLUSH, or a write carrying PREFLUSH. */
    void submit(Bio bio);

    static ArrayFlush create(FlushStrategy strategy, MdArray array) {
        return switch (strategy) {
            case FANOUT -> new FanoutFlush(array);
            case SERIAL -> new SerialFlush(array);
        };
    }

    /** The data part of a PREFLUSH write: the same range, without PREFLUSH, feeding the parent. */
    static Bio dataOf(Bio bio) {
        return bio.chainChild(bio.op(), bio.offset(), bio.length(), 0, bio.flags().withPreflush(false));
    }
}
