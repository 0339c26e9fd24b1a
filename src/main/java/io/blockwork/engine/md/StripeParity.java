package io.blockwork.engine.md;

import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.md.parity.Gf256;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The parity maths over one stripe head's pages (md's {@code raid_run_ops}: compute, prexor,
 * reconstruct, check): P (and Q) from the data, rmw's deltas, rebuilding lost members' blocks
 * from the others, and a scrub's comparison. It reads and writes pages and marks rebuilt blocks
 * valid; it never does member I/O and decides nothing about what to read ({@link StripePlan}).
 * Stateless: functions of a head's {@link StripePages}, called under the head's monitor, except
 * {@link #full}, which a stripe worker runs on pages the head's running operation owns.
 */
final class StripeParity {

    private static final int SECTORS_PER_BLOCK = Raid5.BLOCK / 512;

    private StripeParity() {}

    /** P (and Q) of the blocks of {@code mask}, from the data pages into the parity pages. */
    static void compute(StripePages s, long mask) {
        computeInto(s, mask, s.page(s.pd), s.qPage());
    }

    /** P (and Q) of the runs of {@code mask} from the data pages, into {@code p} and {@code q}. */
    private static void computeInto(StripePages s, long mask, MemorySegment p, MemorySegment q) {
        int width = s.level.geo.syndromeWidth();
        MemorySegment[] data = new MemorySegment[width];
        long[] offs = new long[width];
        for (int d = 0; d < s.disks; d++) {
            if (s.slot[d] >= 0) {
                data[s.slot[d]] = s.page(d);
            }
        }
        BlockMask.forRuns(mask, (off, len) -> {
            Arrays.fill(offs, off);
            if (q == null) {
                s.level.kernel().xor(data, offs, width, p, off, len);
            } else {
                s.level.kernel().genSyndrome(data, offs, width, p, off, q, off, len);
            }
        });
    }

    /**
     * P (and Q) of a whole stripe into {@code p} and {@code q}, from each data member's source
     * ({@code byDisk[d]} from {@code offs[d]}: the callers' buffers of a full-stripe write).
     */
    static void full(StripePages s, MemorySegment[] byDisk, long[] offs, MemorySegment p, MemorySegment q) {
        int width = s.level.geo.syndromeWidth();
        MemorySegment[] data = new MemorySegment[width];
        long[] dataOffs = new long[width];
        for (int d = 0; d < s.disks; d++) {
            if (s.slot[d] >= 0) {
                data[s.slot[d]] = byDisk[d];
                dataOffs[s.slot[d]] = offs[d];
            }
        }
        if (q == null) {
            s.level.kernel().xor(data, dataOffs, width, p, 0, s.bytes);
        } else {
            s.level.kernel().genSyndrome(data, dataOffs, width, p, 0, q, 0, s.bytes);
        }
    }

    /**
     * raid5 rmw: {@code P ^= old ^ new} over one request's bytes, before they are copied into its
     * page (which holds the old data); a zeroing request's new bytes are zeros. Requests of a
     * batch that overlap are right too: each one's old bytes are what the one before left.
     */
    static void xorDelta(StripePages s, StripeHead.Req r) {
        MemorySegment page = s.page(r.disk());
        boolean write = r.op() == BioOp.WRITE;
        MemorySegment[] srcs = write ? new MemorySegment[] {page, r.bio().data()} : new MemorySegment[] {page};
        long[] offs = write ? new long[] {r.off(), r.dataOff()} : new long[] {r.off()};
        s.level.kernel().xorInto(srcs, offs, srcs.length, s.page(s.pd), r.off(), r.len());
    }

    /**
     * raid6 rmw (and raid5's outside {@link #xorDelta}): adds each data slot's blocks of
     * {@code dirty} to P and Q; applied twice, before and after the new data is copied in, it
     * takes the old data out and puts the new in.
     */
    static void deltas(StripePages s, long[] dirty) {
        for (int d = 0; d < s.disks; d++) {
            if (!s.isParity(d) && dirty[d] != 0) {
                delta(s, d, dirty[d]);
            }
        }
    }

    private static void delta(StripePages s, int d, long mask) {
        MemorySegment src = s.page(d);
        if (s.qd < 0) {
            MemorySegment[] one = {src};
            long[] offs = new long[1];
            BlockMask.forRuns(mask, (off, len) -> {
                offs[0] = off;
                s.level.kernel().xorInto(one, offs, 1, s.page(s.pd), off, len);
            });
            return;
        }
        int slot = s.slot[d];
        MemorySegment[] data = new MemorySegment[slot + 1];
        long[] offs = new long[slot + 1];
        data[slot] = src;
        BlockMask.forRuns(mask, (off, len) -> {
            offs[slot] = off;
            s.level.kernel().xorSyndrome(data, offs, slot, slot, s.page(s.pd), off, s.page(s.qd), off, len);
        });
    }

    /**
     * Rebuilds the blocks of {@code mask} of every data member that cannot be read
     * ({@code readers[d]} null), from the others (which the caller has read): XOR from P, from Q
     * for data and P lost, lib/raid6's two-data recovery for two. False if too many are missing.
     */
    static boolean reconstruct(StripePages s, long mask, Member[] readers) {
        List<Integer> lost = new ArrayList<>(2);
        for (int d = 0; d < s.disks; d++) {
            if (!s.isParity(d) && readers[d] == null) {
                lost.add(d);
            }
        }
        if (lost.isEmpty()) {
            return true;
        }
        int pd = s.pd;
        int qd = s.qd;
        boolean pOk = readers[pd] != null || (s.valid[pd] & mask) == mask;
        boolean qOk = qd >= 0 && (readers[qd] != null || (s.valid[qd] & mask) == mask);
        int width = s.level.geo.syndromeWidth();
        if (lost.size() == 1 && pOk) {
            int x = lost.getFirst();
            MemorySegment[] srcs = new MemorySegment[s.disks - 1];
            long[] offs = new long[s.disks - 1];
            int n = 0;
            for (int d = 0; d < s.disks; d++) {
                if (d != x && d != qd) {
                    srcs[n++] = s.page(d);
                }
            }
            int count = n;
            BlockMask.forRuns(mask, (off, len) -> {
                Arrays.fill(offs, off);
                s.level.kernel().xor(srcs, offs, count, s.page(x), off, len);
            });
        } else if (lost.size() == 1 && qOk) {
            // Data and P lost: Q' without x, then Dx = (Q ^ Q') / g^x.
            int x = lost.getFirst();
            MemorySegment tmpP = MemorySegment.ofArray(new byte[s.bytes]);
            MemorySegment tmpQ = MemorySegment.ofArray(new byte[s.bytes]);
            MemorySegment[] data = dataBySlot(s, width, x, -1);
            long[] offs = new long[width];
            int inv = Gf256.inv(Gf256.pow2(s.slot[x]));
            BlockMask.forRuns(mask, (off, len) -> {
                Arrays.fill(offs, off);
                s.level.kernel().genSyndrome(data, offs, width, tmpP, off, tmpQ, off, len);
                xorRange(s, s.page(qd), tmpQ, off, len);
                Gf256.mulInto(inv, tmpQ, off, s.page(x), off, len);
            });
        } else if (lost.size() == 2 && pOk && qOk) {
            int x = lost.get(0);
            int y = lost.get(1);
            int sx = Math.min(s.slot[x], s.slot[y]);
            int sy = Math.max(s.slot[x], s.slot[y]);
            int dx = s.slot[x] == sx ? x : y;
            int dy = dx == x ? y : x;
            MemorySegment tmpP = MemorySegment.ofArray(new byte[s.bytes]);
            MemorySegment tmpQ = MemorySegment.ofArray(new byte[s.bytes]);
            MemorySegment[] data = dataBySlot(s, width, x, y);
            long[] offs = new long[width];
            BlockMask.forRuns(mask, (off, len) -> {
                Arrays.fill(offs, off);
                s.level.kernel().genSyndrome(data, offs, width, tmpP, off, tmpQ, off, len);
                xorRange(s, s.page(pd), tmpP, off, len);
                xorRange(s, s.page(qd), tmpQ, off, len);
                Gf256.recoverTwoData(sx, sy, tmpP, off, tmpQ, off, s.page(dx), off, s.page(dy), off, len);
            });
        } else {
            return false;
        }
        for (int d : lost) {
            s.valid[d] |= mask;
        }
        return true;
    }

    private static MemorySegment[] dataBySlot(StripePages s, int width, int skipA, int skipB) {
        MemorySegment[] data = new MemorySegment[width];
        for (int d = 0; d < s.disks; d++) {
            if (s.slot[d] >= 0 && d != skipA && d != skipB) {
                data[s.slot[d]] = s.page(d);
            }
        }
        return data;
    }

    /** {@code into ^= from} over a range (degraded raid6 only). */
    private static void xorRange(StripePages s, MemorySegment from, MemorySegment into, long off, long len) {
        s.level.kernel().xorInto(new MemorySegment[] {from}, new long[] {off}, 1, into, off, len);
    }

    /**
     * A scrub's finding.
     *
     * @param mismatchedSectors sectors of parity that differed (8 per 4 KiB block, md's mismatch_cnt)
     * @param differing per slot, the parity blocks that differed (rewritten in the pages with {@code fix})
     */
    record Scrub(long mismatchedSectors, long[] differing) {}

    /** Compares P (and Q) with what the data says they must be; with {@code fix} corrects the pages that differ. */
    static Scrub scrub(StripePages s, boolean fix) {
        MemorySegment p = MemorySegment.ofArray(new byte[s.bytes]);
        MemorySegment q = s.qd < 0 ? null : MemorySegment.ofArray(new byte[s.bytes]);
        computeInto(s, s.all, p, q);
        long[] differing = new long[s.disks];
        long mismatched = 0;
        int[] parity = s.qd < 0 ? new int[] {s.pd} : new int[] {s.pd, s.qd};
        MemorySegment[] fresh = s.qd < 0 ? new MemorySegment[] {p} : new MemorySegment[] {p, q};
        for (int i = 0; i < parity.length; i++) {
            MemorySegment have = s.page(parity[i]);
            for (int b = 0; b < s.blocks; b++) {
                long o = (long) b * Raid5.BLOCK;
                if (MemorySegment.mismatch(have, o, o + Raid5.BLOCK, fresh[i], o, o + Raid5.BLOCK) >= 0) {
                    mismatched += SECTORS_PER_BLOCK;
                    differing[parity[i]] |= 1L << b;
                    if (fix) {
                        MemorySegment.copy(fresh[i], o, have, o, Raid5.BLOCK);
                    }
                }
            }
        }
        return new Scrub(mismatched, differing);
    }
}
