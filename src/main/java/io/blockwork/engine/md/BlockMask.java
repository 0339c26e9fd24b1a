package io.blockwork.engine.md;

/**
 * A set of a stripe head's 4 KiB blocks ({@link Raid5#BLOCK}, md's STRIPE_SIZE) as the bits of a
 * long, bit {@code b} for bytes {@code [b*4096, (b+1)*4096)} of a member's page: the unit in
 * which a head plans, computes and does member I/O. A head has at most 64 blocks
 * ({@link Raid5#MAX_STRIPE}).
 */
final class BlockMask {

    private BlockMask() {}

    /** Blocks touched by {@code [off, off+len)}. */
    static long touched(int off, int len) {
        int first = off / Raid5.BLOCK;
        int last = (off + len - 1) / Raid5.BLOCK;
        return bits(first, last + 1);
    }

    /** Blocks wholly inside {@code [off, off+len)}. */
    static long covered(int off, int len) {
        int first = (off + Raid5.BLOCK - 1) / Raid5.BLOCK;
        int end = (off + len) / Raid5.BLOCK;
        return end > first ? bits(first, end) : 0;
    }

    /** The blocks of a run given as block-aligned bytes (as {@link #forRuns} hands them out). */
    static long ofRun(long off, long len) {
        return bits((int) (off / Raid5.BLOCK), (int) ((off + len) / Raid5.BLOCK));
    }

    /** Blocks {@code [from, to)}. */
    static long bits(int from, int to) {
        long hi = to >= 64 ? -1L : (1L << to) - 1;
        long lo = (1L << from) - 1;
        return hi & ~lo;
    }

    /** A run of consecutive blocks, as bytes of the page. */
    interface Run {
        void at(long off, long len);
    }

    /** Calls {@code run} for each run of consecutive set blocks, as byte ranges. */
    static void forRuns(long mask, Run run) {
        long m = mask;
        while (m != 0) {
            int first = Long.numberOfTrailingZeros(m);
            int end = first;
            while (end < 64 && (m & (1L << end)) != 0) {
                end++;
            }
            run.at((long) first * Raid5.BLOCK, (long) (end - first) * Raid5.BLOCK);
            m &= ~bits(first, end);
        }
    }
}
