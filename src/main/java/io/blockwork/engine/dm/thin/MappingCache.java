package io.blockwork.engine.dm.thin;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The mappings of one thin device that only it may write (virtual block → data block), in front
 * of the B-tree, so a write to a provisioned block is a lookup here and a remap: no pool lock,
 * no tree walk, no allocation.
 *
 * <p>Design notes.
 * <ul>
 *   <li>Direct-mapped, lock-free: slot {@code vblock mod 2^20} holds one long, the virtual block's
 *       high bits (its tag), the data block (31 bits) and a valid bit. A collision replaces the
 *       older entry; a miss only costs a B-tree lookup. Slots live in pages of 4096 (32 KiB)
 *       made on first use, so memory grows with the blocks written, to at most 8 MiB a device.
 *   <li>Only exclusive mappings enter ({@link PoolMetadata#find} without {@code SHARED}, or a
 *       mapping just inserted): a shared block must be copied before a write, so it must miss.
 *   <li>Staleness. Every change of a virtual block's mapping holds its cell: an insert replaces
 *       the entry under it, an unmap {@link #forget}s it under it after the I/O that entered
 *       earlier has drained (the I/O path fills the cache before its bio is sent, so such a fill
 *       is always older than the unmap that follows it). A snapshot makes every mapping of its
 *       origin shared: the pool {@link #clear}s the origin's cache, and the origin is suspended
 *       then (no I/O to race with). A deleted device has no open thin, and its cache goes with
 *       the last one.
 * </ul>
 */
final class MappingCache {

    /** {@link #get}: not cached. */
    static final long MISS = -1;

    private static final int SLOT_BITS = 20;
    private static final int PAGE_BITS = 12;
    private static final int PAGE_SLOTS = 1 << PAGE_BITS;
    private static final long SLOT_MASK = (1L << SLOT_BITS) - 1;
    private static final long BLOCK_MASK = (1L << 31) - 1;
    private static final long VALID = 1L << 63;
    private static final long MAX_TAG = (1L << 32) - 1;

    private volatile AtomicReferenceArray<AtomicLongArray> pages = newPages();

    private static AtomicReferenceArray<AtomicLongArray> newPages() {
        return new AtomicReferenceArray<>(1 << (SLOT_BITS - PAGE_BITS));
    }

    /** The data block cached for {@code vblock}, or {@link #MISS}. */
    long get(long vblock) {
        long tag = vblock >>> SLOT_BITS;
        int slot = (int) (vblock & SLOT_MASK);
        AtomicLongArray page = pages.getAcquire(slot >>> PAGE_BITS);
        if (page == null) {
            return MISS;
        }
        long e = page.getAcquire(slot & (PAGE_SLOTS - 1));
        return e != 0 && (e >>> 31 & MAX_TAG) == tag ? e & BLOCK_MASK : MISS;
    }

    /** Caches {@code vblock → dataBlock}, a mapping only this device may write. */
    void put(long vblock, long dataBlock) {
        long tag = vblock >>> SLOT_BITS;
        if (tag > MAX_TAG || dataBlock < 0 || dataBlock > BLOCK_MASK) {
            return;
        }
        int slot = (int) (vblock & SLOT_MASK);
        AtomicReferenceArray<AtomicLongArray> p = pages;
        int pi = slot >>> PAGE_BITS;
        AtomicLongArray page = p.getAcquire(pi);
        if (page == null) {
            AtomicLongArray fresh = new AtomicLongArray(PAGE_SLOTS);
            page = p.compareAndExchange(pi, null, fresh);
            if (page == null) {
                page = fresh;
            }
        }
        page.setRelease(slot & (PAGE_SLOTS - 1), VALID | tag << 31 | dataBlock);
    }

    /** Drops {@code vblock}'s entry, if the slot holds it (another block's entry stays). */
    void forget(long vblock) {
        long tag = vblock >>> SLOT_BITS;
        int slot = (int) (vblock & SLOT_MASK);
        AtomicLongArray page = pages.getAcquire(slot >>> PAGE_BITS);
        if (page == null) {
            return;
        }
        int i = slot & (PAGE_SLOTS - 1);
        long e = page.getAcquire(i);
        while (e != 0 && (e >>> 31 & MAX_TAG) == tag) {
            long seen = page.compareAndExchange(i, e, 0);
            if (seen == e) {
                return;
            }
            e = seen;
        }
    }

    /** Drops every entry (the device was snapshotted: its mappings are shared now). */
    void clear() {
        pages = newPages();
    }
}
