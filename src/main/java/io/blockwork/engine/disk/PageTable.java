package io.blockwork.engine.disk;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongConsumer;

/**
 * A sparse array of 4 KiB pages: a three-level radix tree whose interior nodes are created on
 * first write, so memory follows data written rather than declared size (a 1 TiB table costs a
 * 4 KiB root). Reads are lock-free; nodes are published with compare-and-set.
 */
final class PageTable {

    static final int PAGE_SHIFT = 12;
    static final int PAGE_SIZE = 1 << PAGE_SHIFT;
    private static final int FAN_SHIFT = 9;
    private static final int FAN = 1 << FAN_SHIFT;
    private static final int FAN_MASK = FAN - 1;

    private final AtomicReferenceArray<AtomicReferenceArray<AtomicReferenceArray<byte[]>>> root;
    private final long pages;

    PageTable(long sizeBytes) {
        this.pages = (sizeBytes + PAGE_SIZE - 1) >>> PAGE_SHIFT;
        long rootEntries = (pages + ((long) FAN * FAN) - 1) >>> (2 * FAN_SHIFT);
        if (rootEntries > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too large for a memory disk: " + sizeBytes);
        }
        this.root = new AtomicReferenceArray<>((int) Math.max(1, rootEntries));
    }

    long pages() {
        return pages;
    }

    /** The page, or null if it was never written (or discarded). */
    byte[] get(long index) {
        var mid = root.get((int) (index >>> (2 * FAN_SHIFT)));
        if (mid == null) {
            return null;
        }
        var leaf = mid.get((int) (index >>> FAN_SHIFT) & FAN_MASK);
        return leaf == null ? null : leaf.get((int) index & FAN_MASK);
    }

    /** Stores {@code page} at {@code index}; returns the page that was there. */
    byte[] set(long index, byte[] page) {
        return leafFor(index).getAndSet((int) index & FAN_MASK, page);
    }

    /** Installs {@code page} if the slot is empty; returns the page now in the slot. */
    byte[] setIfAbsent(long index, byte[] page) {
        var leaf = leafFor(index);
        int slot = (int) index & FAN_MASK;
        byte[] witness = leaf.compareAndExchange(slot, null, page);
        return witness == null ? page : witness;
    }

    /** Empties the slot if it holds {@code expected}. */
    boolean clear(long index, byte[] expected) {
        var mid = root.get((int) (index >>> (2 * FAN_SHIFT)));
        if (mid == null) {
            return false;
        }
        var leaf = mid.get((int) (index >>> FAN_SHIFT) & FAN_MASK);
        return leaf != null && leaf.compareAndSet((int) index & FAN_MASK, expected, null);
    }

    /** Calls {@code action} for each present page index in {@code [from, to)}, skipping empty subtrees. */
    void forEachPresent(long from, long to, LongConsumer action) {
        long i = from;
        while (i < to) {
            var mid = root.get((int) (i >>> (2 * FAN_SHIFT)));
            if (mid == null) {
                i = ((i >>> (2 * FAN_SHIFT)) + 1) << (2 * FAN_SHIFT);
                continue;
            }
            var leaf = mid.get((int) (i >>> FAN_SHIFT) & FAN_MASK);
            if (leaf == null) {
                i = ((i >>> FAN_SHIFT) + 1) << FAN_SHIFT;
                continue;
            }
            long leafEnd = Math.min(to, ((i >>> FAN_SHIFT) + 1) << FAN_SHIFT);
            for (; i < leafEnd; i++) {
                if (leaf.get((int) i & FAN_MASK) != null) {
                    action.accept(i);
                }
            }
        }
    }

    /**
     * The first index in {@code [from, to)} whose page is {@code present} (or absent), else
     * {@code to}; empty subtrees are skipped whole.
     */
    long next(long from, long to, boolean present) {
        long i = from;
        while (i < to) {
            var mid = root.get((int) (i >>> (2 * FAN_SHIFT)));
            if (mid == null) {
                if (!present) {
                    return i;
                }
                i = ((i >>> (2 * FAN_SHIFT)) + 1) << (2 * FAN_SHIFT);
                continue;
            }
            var leaf = mid.get((int) (i >>> FAN_SHIFT) & FAN_MASK);
            if (leaf == null) {
                if (!present) {
                    return i;
                }
                i = ((i >>> FAN_SHIFT) + 1) << FAN_SHIFT;
                continue;
            }
            long leafEnd = Math.min(to, ((i >>> FAN_SHIFT) + 1) << FAN_SHIFT);
            for (; i < leafEnd; i++) {
                if ((leaf.get((int) i & FAN_MASK) != null) == present) {
                    return i;
                }
            }
        }
        return to;
    }

    private AtomicReferenceArray<byte[]> leafFor(long index) {
        int r = (int) (index >>> (2 * FAN_SHIFT));
        var mid = root.get(r);
        if (mid == null) {
            var fresh = new AtomicReferenceArray<AtomicReferenceArray<byte[]>>(FAN);
            mid = root.compareAndExchange(r, null, fresh);
            if (mid == null) {
                mid = fresh;
            }
        }
        int m = (int) (index >>> FAN_SHIFT) & FAN_MASK;
        var leaf = mid.get(m);
        if (leaf == null) {
            var fresh = new AtomicReferenceArray<byte[]>(FAN);
            leaf = mid.compareAndExchange(m, null, fresh);
            if (leaf == null) {
                leaf = fresh;
            }
        }
        return leaf;
    }
}
