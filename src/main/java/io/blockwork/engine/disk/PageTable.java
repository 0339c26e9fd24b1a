package io.blockwork.engine.disk;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongConsumer;

/**
 * A sparse array of 4 KiB pages: a radix tree of 512-way nodes, created on first write, so memory
 * follows data written rather than declared size. The tree is as deep as the size needs (one level
 * per 9 bits of page index: two up to 1 GiB, three up to 512 GiB, seven for the largest device),
 * and every level, the root included, is one 512-entry node: a 1 EiB table costs a 4 KiB root,
 * where a root sized to the declared size would cost gigabytes. Reads are lock-free; nodes are
 * published with compare-and-set.
 */
final class PageTable {

    static final int PAGE_SHIFT = 12;
    static final int PAGE_SIZE = 1 << PAGE_SHIFT;
    private static final int FAN_SHIFT = 9;
    private static final int FAN = 1 << FAN_SHIFT;
    private static final int FAN_MASK = FAN - 1;

    /** Interior nodes hold nodes; level-0 nodes (leaves) hold pages ({@code byte[]}). */
    private final AtomicReferenceArray<Object> root = new AtomicReferenceArray<>(FAN);
    /** Node levels: the root is at level {@code levels - 1}, leaves at 0. */
    private final int levels;
    private final long pages;

    PageTable(long sizeBytes) {
        if (sizeBytes < 0) {
            throw new IllegalArgumentException("negative size: " + sizeBytes);
        }
        this.pages = (sizeBytes >>> PAGE_SHIFT) + ((sizeBytes & (PAGE_SIZE - 1)) == 0 ? 0 : 1);
        int indexBits = 64 - Long.numberOfLeadingZeros(Math.max(1, pages - 1));
        this.levels = Math.max(1, (indexBits + FAN_SHIFT - 1) / FAN_SHIFT);
    }

    long pages() {
        return pages;
    }

    /** How deep the tree is: the nodes one page's first write may create. */
    int levels() {
        return levels;
    }

    /** The page, or null if it was never written (or discarded). */
    byte[] get(long index) {
        AtomicReferenceArray<Object> leaf = leaf(index, false);
        return leaf == null ? null : (byte[]) leaf.get(slot(index, 0));
    }

    /** Stores {@code page} at {@code index}; returns the page that was there. */
    byte[] set(long index, byte[] page) {
        return (byte[]) leaf(index, true).getAndSet(slot(index, 0), page);
    }

    /** Installs {@code page} if the slot is empty; returns the page now in the slot. */
    byte[] setIfAbsent(long index, byte[] page) {
        Object witness = leaf(index, true).compareAndExchange(slot(index, 0), null, page);
        return witness == null ? page : (byte[]) witness;
    }

    /** Empties the slot if it holds {@code expected}. */
    boolean clear(long index, byte[] expected) {
        AtomicReferenceArray<Object> leaf = leaf(index, false);
        return leaf != null && leaf.compareAndSet(slot(index, 0), expected, null);
    }

    /** Calls {@code action} for each present page index in {@code [from, to)}, skipping empty subtrees. */
    void forEachPresent(long from, long to, LongConsumer action) {
        for (long i = next(from, to, true); i < to; i = next(i + 1, to, true)) {
            action.accept(i);
        }
    }

    /**
     * The first index in {@code [from, to)} whose page is {@code present} (or absent), else
     * {@code to}; empty subtrees are skipped whole.
     */
    long next(long from, long to, boolean present) {
        long i = from;
        while (i < to) {
            AtomicReferenceArray<Object> node = root;
            int level = levels - 1;
            for (; level > 0; level--) {
                Object child = node.get(slot(i, level));
                if (child == null) {
                    break;
                }
                node = node(child);
            }
            if (level > 0) {
                // the entry at this level is empty: every page it would cover is absent
                if (!present) {
                    return i;
                }
                int shift = level * FAN_SHIFT;
                i = ((i >>> shift) + 1) << shift;
                continue;
            }
            long leafEnd = Math.min(to, ((i >>> FAN_SHIFT) + 1) << FAN_SHIFT);
            for (; i < leafEnd; i++) {
                if ((node.get(slot(i, 0)) != null) == present) {
                    return i;
                }
            }
        }
        return to;
    }

    /** The leaf holding page {@code index}; with {@code create}, builds the missing nodes on the way. */
    private AtomicReferenceArray<Object> leaf(long index, boolean create) {
        AtomicReferenceArray<Object> node = root;
        for (int level = levels - 1; level > 0; level--) {
            int s = slot(index, level);
            Object child = node.get(s);
            if (child == null) {
                if (!create) {
                    return null;
                }
                AtomicReferenceArray<Object> fresh = new AtomicReferenceArray<>(FAN);
                child = node.compareAndExchange(s, null, fresh);
                if (child == null) {
                    child = fresh;
                }
            }
            node = node(child);
        }
        return node;
    }

    private static int slot(long index, int level) {
        return (int) (index >>> (level * FAN_SHIFT)) & FAN_MASK;
    }

    @SuppressWarnings("unchecked")
    private static AtomicReferenceArray<Object> node(Object o) {
        return (AtomicReferenceArray<Object>) o;
    }
}
