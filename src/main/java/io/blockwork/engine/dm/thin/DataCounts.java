package io.blockwork.engine.dm.thin;

import java.util.Arrays;

/**
 * Every data block's reference count, in memory: an int per block in pages of {@value #PAGE}
 * made on first use, so it grows with the blocks ever counted (the allocator hands them out from
 * the bottom), 4 bytes a block, not with the data device's size. The counts the I/O path changes
 * live here; the refcount tree gets them at the commit ({@link DataSpace#applyPending}).
 *
 * <p>Not thread-safe: {@link PoolMetadata} calls it under its lock.
 */
final class DataCounts {

    private static final int PAGE_SHIFT = 12;
    static final int PAGE = 1 << PAGE_SHIFT;

    private int[][] pages = new int[0][];

    int get(long block) {
        int p = (int) (block >>> PAGE_SHIFT);
        int[] page = p < pages.length ? pages[p] : null;
        return page == null ? 0 : page[(int) block & (PAGE - 1)];
    }

    void set(long block, int count) {
        int p = (int) (block >>> PAGE_SHIFT);
        if (p >= pages.length) {
            if (count == 0) {
                return;
            }
            pages = Arrays.copyOf(pages, Math.max(p + 1, pages.length * 2));
        }
        int[] page = pages[p];
        if (page == null) {
            if (count == 0) {
                return;
            }
            page = pages[p] = new int[PAGE];
        }
        page[(int) block & (PAGE - 1)] = count;
    }

    /** Receives the blocks with a count above zero, ascending. */
    void forEach(BTree.Visitor v) {
        for (int p = 0; p < pages.length; p++) {
            int[] page = pages[p];
            if (page == null) {
                continue;
            }
            for (int i = 0; i < PAGE; i++) {
                if (page[i] != 0) {
                    v.entry(((long) p << PAGE_SHIFT) | i, page[i]);
                }
            }
        }
    }
}
