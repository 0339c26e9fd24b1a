package io.blockwork.engine.md;

import java.lang.foreign.MemorySegment;
import java.util.Queue;

/**
 * What a stripe head holds (md's {@code stripe_head.dev[]}): where it lies on the members, which
 * member slot is P, Q and which syndrome slot each data member fills, and a page per member with
 * the 4 KiB blocks of it that hold what the member holds ({@link #valid}, md's R5_UPTODATE).
 *
 * <p>Guarded by the head's monitor: the pages and {@link #valid} change only under it, by the
 * head's steps ({@link StripeParity}'s maths among them) and its member read completions
 * ({@link StripeIo}). The one exception is a stripe worker's full-stripe parity pass, which
 * writes P's and Q's pages without it while the running operation owns them (see
 * {@link StripeHead}).
 */
final class StripePages {

    final Raid5 level;
    /** Where the head starts on every member. */
    final long addr;
    /** The row (chunk of every member) the head lies in. */
    final long row;
    final int disks;
    /** The slot holding P. */
    final int pd;
    /** The slot holding Q; -1 below raid6. */
    final int qd;
    /** Syndrome slot of each member, -1 for P and Q. */
    final int[] slot;
    /** Bytes of each member the head covers: a page. */
    final int bytes;
    /** 4 KiB blocks per page. */
    final int blocks;
    /** Every block of a page. */
    final long all;
    /** Per slot: the blocks of its page that hold the member's bytes. */
    final long[] valid;
    private final MemorySegment[] pages;

    StripePages(Raid5 level, long key) {
        this.level = level;
        this.addr = key * level.stripeBytes;
        this.row = addr / level.geo.chunkBytes();
        this.disks = level.geo.disks();
        this.pd = level.geo.parityDisk(row);
        this.qd = level.geo.qDisk(row);
        this.slot = level.geo.syndromeSlots(row);
        this.bytes = level.stripeBytes;
        this.blocks = level.blocksPerHead;
        this.all = blocks == 64 ? -1L : (1L << blocks) - 1;
        this.pages = new MemorySegment[disks];
        this.valid = new long[disks];
    }

    boolean isParity(int d) {
        return d == pd || d == qd;
    }

    /** Slot {@code d}'s page, taken from the cache the first time it is needed. */
    MemorySegment page(int d) {
        MemorySegment p = pages[d];
        if (p == null) {
            p = level.cache.page();
            pages[d] = p;
        }
        return p;
    }

    /** Q's page, or null below raid6. */
    MemorySegment qPage() {
        return qd < 0 ? null : page(qd);
    }

    /** P's (and Q's) pages now hold the blocks of {@code mask}. */
    void markParity(long mask) {
        valid[pd] |= mask;
        if (qd >= 0) {
            valid[qd] |= mask;
        }
    }

    /** Hands the pages to {@code pool} (the head is idle and evicted); returns how many. */
    int givePages(Queue<MemorySegment> pool) {
        int n = 0;
        for (int d = 0; d < disks; d++) {
            if (pages[d] != null) {
                pool.add(pages[d]);
                pages[d] = null;
                n++;
            }
        }
        return n;
    }
}
