package io.blockwork.engine.dm.targets.mirror;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One bit per region, readable from any thread without a lock; changing bits is atomic per bit,
 * so different threads may change different bits of one word. Words are little-endian bit order:
 * region {@code r} is bit {@code r % 64} of word {@code r / 64}, which is also the on-disk order
 * (byte {@code r / 8}, bit {@code r % 8}) when words are stored little-endian.
 */
final class RegionBitmap {

    private final long bits;
    private final AtomicLongArray words;

    RegionBitmap(long bits) {
        this.bits = bits;
        this.words = new AtomicLongArray((int) ((bits + 63) >>> 6));
    }

    boolean get(long r) {
        return (words.get((int) (r >>> 6)) & (1L << r)) != 0;
    }

    /** Sets the bit; true if it changed. */
    boolean set(long r) {
        long mask = 1L << r;
        return (words.getAndUpdate((int) (r >>> 6), w -> w | mask) & mask) == 0;
    }

    /** Clears the bit; true if it changed. */
    boolean clear(long r) {
        long mask = 1L << r;
        return (words.getAndUpdate((int) (r >>> 6), w -> w & ~mask) & mask) != 0;
    }

    /** Every bit set or every bit clear; bits past the end stay clear. */
    void fill(boolean value) {
        for (int i = 0; i < words.length(); i++) {
            words.set(i, value ? wordMask(i) : 0L);
        }
    }

    void copyFrom(RegionBitmap other) {
        for (int i = 0; i < words.length(); i++) {
            words.set(i, other.words.get(i));
        }
    }

    long count() {
        long n = 0;
        for (int i = 0; i < words.length(); i++) {
            n += Long.bitCount(words.get(i));
        }
        return n;
    }

    /** The first clear bit at or after {@code from}, or -1. */
    long nextClear(long from) {
        if (from >= bits) {
            return -1;
        }
        int i = (int) (from >>> 6);
        long w = ~words.get(i) & (-1L << from) & wordMask(i);
        while (w == 0) {
            if (++i >= words.length()) {
                return -1;
            }
            w = ~words.get(i) & wordMask(i);
        }
        return ((long) i << 6) + Long.numberOfTrailingZeros(w);
    }

    int wordCount() {
        return words.length();
    }

    long word(int i) {
        return words.get(i);
    }

    /** Loads a stored word; bits past the end are dropped. */
    void word(int i, long value) {
        words.set(i, value & wordMask(i));
    }

    /** The bits of word {@code i} that lie inside the bitmap. */
    private long wordMask(int i) {
        long inWord = Math.min(64, bits - ((long) i << 6));
        return inWord == 64 ? -1L : (1L << inWord) - 1;
    }
}
