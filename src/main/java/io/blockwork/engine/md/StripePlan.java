package io.blockwork.engine.md;

import io.blockwork.engine.block.BioOp;
import java.util.List;

/**
 * What a stripe head's running operation must read before it can compute, decided from its
 * requests, the blocks its pages hold and which members can be read (md's {@code analyse_stripe}
 * and {@code handle_stripe_dirtying}). Planning reads the pages' validity and changes nothing
 * else; the head ({@link StripeHead}) then issues the reads ({@link StripeIo}) and computes
 * ({@link StripeParity}). One plan per head, overwritten by each operation, so planning allocates
 * no more than the masks themselves.
 *
 * <p>Every plan takes {@code readers}: per member slot, a member that can read the head's range,
 * or null when none can (its blocks must be rebuilt from the others). Guarded by the head's
 * monitor, like the pages.
 */
final class StripePlan {

    private final StripePages s;

    /** Per slot, the blocks the write batch writes. */
    long[] dirty;
    /** Every block any member's part of the batch writes (the parity blocks to update). */
    long union;
    /** Per slot, the blocks to read before computing. */
    long[] reads;
    /** The blocks of unreadable data members to rebuild from the others (never for rmw). */
    long rebuild;
    /** Read-modify-write (the old data being replaced and the old parity were read), else reconstruct-write. */
    boolean rmw;

    StripePlan(StripePages pages) {
        this.s = pages;
    }

    /**
     * Plans a write batch: rmw or rcw, by cost. Whichever reads fewer 4 KiB blocks not already
     * valid wins, rcw on a tie. rcw reads the data not being replaced, rebuilding (from every
     * readable member, parity included) the part of it whose member cannot be read; rmw reads the
     * old data being replaced and the old parity, and is ruled out when a member it needs cannot
     * be read or the stripe is {@code unsynced} (its old parity may be wrong). Counts the choice
     * in {@code level}'s statistics. False, refused, when a block must be rebuilt in an unsynced
     * stripe: its parity was never computed, and a rebuilt block would be data nobody wrote.
     */
    boolean write(List<StripeHead.Req> batch, Member[] readers, boolean unsynced) {
        int disks = s.disks;
        long[] valid = s.valid;
        dirty = new long[disks];
        long[] full = new long[disks];
        union = 0;
        for (StripeHead.Req r : batch) {
            long m = BlockMask.touched(r.off(), r.len());
            dirty[r.disk()] |= m;
            full[r.disk()] |= BlockMask.covered(r.off(), r.len());
            union |= m;
        }
        // rcw: the data not being replaced; rebuilt first where its member cannot be read.
        long[] rcwNeed = new long[disks];
        rebuild = 0;
        int rcwReads = 0;
        for (int d = 0; d < disks; d++) {
            if (s.isParity(d)) {
                continue;
            }
            long need = union & ~full[d] & ~valid[d];
            if (readers[d] == null) {
                rebuild |= need;
            } else {
                rcwNeed[d] = need;
                rcwReads += Long.bitCount(need);
            }
        }
        if (rebuild != 0) {
            if (unsynced) {
                return false;
            }
            for (int d = 0; d < disks; d++) {
                if (readers[d] != null) {
                    rcwNeed[d] |= rebuild & ~valid[d];
                }
            }
            rcwReads = Integer.MAX_VALUE / 2;
        }
        // rmw: the old data being replaced and the old parity.
        long[] rmwNeed = new long[disks];
        int rmwReads = 0;
        boolean rmwOk = !unsynced;
        for (int d = 0; d < disks && rmwOk; d++) {
            long need = s.isParity(d) ? union & ~valid[d] : dirty[d] & ~valid[d];
            if (need != 0 && readers[d] == null) {
                rmwOk = false;
            }
            rmwNeed[d] = need;
            rmwReads += Long.bitCount(need);
        }
        rmw = rmwOk && rmwReads < rcwReads;
        if (rmw) {
            // Nothing is rebuilt for rmw: the other members were not read, so their pages may be stale.
            rebuild = 0;
        }
        reads = rmw ? rmwNeed : rcwNeed;
        Raid5 level = s.level;
        if (rmw) {
            level.rmwStripes.increment();
        } else if (rcwReads == 0 && union == s.all && everyDataBlock(full)) {
            level.fullStripes.increment();
        } else {
            level.rcwStripes.increment();
        }
        return true;
    }

    private boolean everyDataBlock(long[] full) {
        for (int d = 0; d < s.disks; d++) {
            if (!s.isParity(d) && full[d] != s.all) {
                return false;
            }
        }
        return true;
    }

    /**
     * Plans a read batch: the blocks it needs from its members. Blocks of a member that cannot be
     * read are rebuilt from what the others hold now, not from the cache: a read answered from
     * pages while every member is failing would hide the failure from the caller. False, refused,
     * when that is needed in an {@code unsynced} stripe.
     */
    boolean read(List<StripeHead.Req> batch, Member[] readers, boolean unsynced) {
        long[] need = new long[s.disks];
        rebuild = 0;
        for (StripeHead.Req r : batch) {
            long m = BlockMask.touched(r.off(), r.len());
            if (readers[r.disk()] != null) {
                need[r.disk()] |= m & ~s.valid[r.disk()];
            } else {
                rebuild |= m;
            }
        }
        reads = need;
        if (rebuild != 0) {
            if (unsynced) {
                return false;
            }
            for (int d = 0; d < s.disks; d++) {
                if (readers[d] != null) {
                    need[d] |= rebuild;
                }
            }
            s.level.reconstructions.increment();
        }
        return true;
    }

    /**
     * Plans a scrub or rebuild: every block it does not hold of every member that can be read.
     * Returns how many slots no member can read.
     */
    int sync(Member[] readers) {
        reads = new long[s.disks];
        int unreadable = 0;
        for (int d = 0; d < s.disks; d++) {
            if (readers[d] != null) {
                reads[d] = s.all & ~s.valid[d];
            } else {
                unreadable++;
            }
        }
        return unreadable;
    }

    /**
     * The one write request covering each data member's whole page, or null if the batch is not
     * like that; when it is, parity comes straight from the callers' buffers (md's skip_copy).
     */
    StripeHead.Req[] wholePages(List<StripeHead.Req> batch) {
        StripeHead.Req[] whole = new StripeHead.Req[s.disks];
        for (StripeHead.Req r : batch) {
            if (r.op() != BioOp.WRITE || r.off() != 0 || r.len() != s.bytes || whole[r.disk()] != null) {
                return null;
            }
            whole[r.disk()] = r;
        }
        for (int d = 0; d < s.disks; d++) {
            if (!s.isParity(d) && whole[d] == null) {
                return null;
            }
        }
        return whole;
    }
}
