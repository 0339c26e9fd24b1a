package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.md.parity.Gf256;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One stripe head (md's {@code stripe_head}): the same {@link Raid5#stripeBytes} of every member,
 * a page for each, and the requests waiting on it. Design note:
 *
 * <ul>
 *   <li><b>One operation at a time.</b> A head runs a write batch, a read, or a sync request to
 *       its end before the next: plan, read what is missing, compute, write, complete. Requests
 *       arriving meanwhile queue, and the next write batch takes all queued writes at once
 *       (md's handle_stripe with bios attached to the stripe).
 *   <li><b>rmw or rcw, by cost</b> (md's handle_stripe_dirtying): read-modify-write reads the old
 *       data being replaced and the old parity; reconstruct-write reads the data not being
 *       replaced. Whichever reads fewer 4 KiB blocks not already cached wins, rcw on a tie; a
 *       full-stripe write reads nothing. Above the resync point only rcw is used (the old parity
 *       may be wrong there), and a member that cannot be read rules rmw out.
 *   <li><b>Degraded</b>: blocks of members that cannot be read are rebuilt from all the others
 *       (XOR, or lib/raid6's recovery for two), before a read copies them out or a write uses
 *       them as old data. Above the resync point they are refused instead: parity there was
 *       never computed, and a rebuilt block would be data nobody wrote.
 *   <li><b>Cache</b>: pages hold what the members hold ({@link #valid} per 4 KiB block); writes
 *       complete only after the members have them, so the cache is never dirty, and flush/FUA
 *       are the members' (FUA rides on every member write of a batch that carries one).
 *   <li><b>Threads</b>: whoever schedules the head runs it ({@link #schedule}); member completions
 *       (possibly inline, on the same thread) only record their result and schedule it again, so
 *       the work loops instead of recursing. Member I/O is submitted and bios completed outside
 *       the head's lock.
 * </ul>
 *
 * <p>Size note: over 400 lines because the head's one state machine (plan, read, rebuild,
 * compute, write, complete) serves writes, reads and sync requests under one lock and over one
 * set of pages; split across files, that lock's invariants would be too.
 */
final class StripeHead {

    /** One piece of a bio on this head: {@code [off, off+len)} of slot {@code disk}'s page. */
    record Req(Bio bio, BioOp op, int disk, int off, int len, long dataOff) {}

    /** A sync request from the daemon: scrub (check/repair/resync) or rebuild {@code target}. */
    static final class SyncOp {
        final Member target;
        final boolean fix;
        private final Thread waiter = Thread.currentThread();
        private volatile boolean done;
        private long mismatches;
        private Redundancy.Recovered recovered = Redundancy.Recovered.COPIED;

        SyncOp(Member target, boolean fix) {
            this.target = target;
            this.fix = fix;
        }

        void finish(long mismatched, Redundancy.Recovered how) {
            mismatches = mismatched;
            recovered = how;
            done = true;
            LockSupport.unpark(waiter);
        }

        private void await() {
            while (!done) {
                LockSupport.park(this);
            }
        }

        long awaitMismatches() {
            await();
            return mismatches;
        }

        Redundancy.Recovered awaitRecovered() {
            await();
            return recovered;
        }
    }

    private enum Kind { WRITE, READ, SYNC }

    private static final int SECTORS_PER_BLOCK = Raid5.BLOCK / 512;

    final Raid5 level;
    final long key;
    /** Where the head starts on every member. */
    private final long addr;
    private final long row;
    private final int disks;
    private final int pd;
    private final int qd;
    /** Syndrome slot of each member, -1 for P and Q. */
    private final int[] slot;
    private final int blocks;
    private final long all;

    /** Guarded by the cache's lock. */
    int refs;

    // Guarded by this.
    private final MemorySegment[] pages;
    private final long[] valid;
    private final ArrayDeque<Req> reads = new ArrayDeque<>();
    private final ArrayDeque<Req> writes = new ArrayDeque<>();
    private SyncOp syncRequest;
    private boolean running;
    private boolean again;
    private int inFlight;
    private boolean ioFailed;
    // The operation in progress.
    private Kind kind;
    private int stage;
    private List<Req> batch;
    private SyncOp sync;
    private long[] dirty;
    private long union;
    private long rebuild;
    private boolean rmw;
    /**
     * Journal records this write batch has logged (one): retired when the batch succeeds, else it
     * pins the journal (StripeJournal#pin).
     */
    private int journaled;
    /** The journal refused this batch's record (failed, or pinned and full): the batch fails, members untouched. */
    private boolean refused;
    /** During a full-stripe write from the callers' buffers: each data member's source, else null. */
    private MemorySegment[] direct;
    private long[] directOff;

    StripeHead(Raid5 level, long key) {
        this.level = level;
        this.key = key;
        this.addr = key * level.stripeBytes;
        this.row = addr / level.geo.chunkBytes();
        this.disks = level.geo.disks();
        this.pd = level.geo.parityDisk(row);
        this.qd = level.geo.qDisk(row);
        this.slot = level.geo.syndromeSlots(row);
        this.blocks = level.blocksPerHead;
        this.all = blocks == 64 ? -1L : (1L << blocks) - 1;
        this.pages = new MemorySegment[disks];
        this.valid = new long[disks];
    }

    /* ---- Queueing and the run loop ---- */

    synchronized void add(Req req) {
        (req.op() == BioOp.READ ? reads : writes).add(req);
    }

    synchronized void requestSync(SyncOp op) {
        syncRequest = op;
    }

    /** Runs the head until nothing is left to do without waiting for member I/O. */
    void schedule() {
        synchronized (this) {
            if (running) {
                again = true;
                return;
            }
            running = true;
        }
        List<Runnable> actions = new ArrayList<>();
        while (true) {
            synchronized (this) {
                again = false;
                step(actions);
                if (actions.isEmpty() && !again) {
                    running = false;
                    return;
                }
            }
            for (Runnable a : actions) {
                a.run();
            }
            actions.clear();
        }
    }

    /** Caller holds the lock. Advances the operation or starts the next; work outside the lock goes to {@code out}. */
    private void step(List<Runnable> out) {
        if (inFlight > 0) {
            return;
        }
        if (kind == null) {
            if (!writes.isEmpty()) {
                batch = new ArrayList<>(writes);
                writes.clear();
                begin(Kind.WRITE);
            } else if (syncRequest != null) {
                sync = syncRequest;
                syncRequest = null;
                begin(Kind.SYNC);
            } else if (!reads.isEmpty()) {
                batch = new ArrayList<>(reads);
                reads.clear();
                begin(Kind.READ);
            } else {
                return;
            }
        }
        if (refused) {
            refused = false;
            end(out, IoStatus.IO_ERROR, 0, null);
            return;
        }
        if (ioFailed) {
            // A member failed under us: plan again with the members that are left.
            ioFailed = false;
            stage = 0;
        }
        if (level.members.lostReason() != null) {
            end(out, IoStatus.IO_ERROR, 0, Redundancy.Recovered.NO_SOURCE);
            return;
        }
        switch (kind) {
            case WRITE -> stepWrite(out);
            case READ -> stepRead(out);
            case SYNC -> stepSync(out);
        }
        if (inFlight == 0 && kind != null) {
            again = true;
        }
    }

    private void begin(Kind k) {
        kind = k;
        stage = 0;
    }

    /** Ends the operation: completes its requests (or the sync op) and drops their references. */
    private void end(List<Runnable> out, IoStatus status, long mismatched, Redundancy.Recovered how) {
        Kind k = kind;
        List<Req> done = batch;
        SyncOp s = sync;
        kind = null;
        batch = null;
        sync = null;
        again = true;
        if (k == Kind.SYNC) {
            out.add(() -> {
                s.finish(mismatched, how);
                level.cache.release(this, 1);
            });
        } else {
            int records = journaled;
            journaled = 0;
            out.add(() -> {
                // A record is spent only once its member writes all succeeded; a failed batch may
                // have left new parity beside old data, which only the record's replay repairs.
                if (records > 0 && status.ok()) {
                    level.journal.retire(records);
                } else if (records > 0) {
                    level.journal.pin();
                }
                for (Req r : done) {
                    r.bio().endio(status);
                }
                level.cache.release(this, done.size());
            });
        }
    }

    /* ---- Writes ---- */

    private void stepWrite(List<Runnable> out) {
        Member[] readers = readers(null);
        if (stage == 0) {
            dirty = new long[disks];
            long[] full = new long[disks];
            union = 0;
            for (Req r : batch) {
                long m = touched(r.off(), r.len());
                dirty[r.disk()] |= m;
                full[r.disk()] |= covered(r.off(), r.len());
                union |= m;
            }
            boolean unsynced = unsynced();
            // rcw: the data not being replaced; rebuilt first where its member cannot be read.
            long[] rcwNeed = new long[disks];
            rebuild = 0;
            int rcwReads = 0;
            for (int d = 0; d < disks; d++) {
                if (isParity(d)) {
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
                    end(out, IoStatus.IO_ERROR, 0, null);
                    return;
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
                long need = isParity(d) ? union & ~valid[d] : dirty[d] & ~valid[d];
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
            long[] need = rmw ? rmwNeed : rcwNeed;
            if (rmw) {
                level.rmwStripes.increment();
            } else if (rcwReads == 0 && union == all && fullStripe(full)) {
                level.fullStripes.increment();
            } else {
                level.rcwStripes.increment();
            }
            stage = 1;
            readInto(need, readers, out);
            if (inFlight > 0) {
                return;
            }
        }
        if (stage == 1) {
            if (rebuild != 0 && !reconstruct(rebuild, readers)) {
                end(out, IoStatus.IO_ERROR, 0, null);
                return;
            }
            // raid5's rmw moves P by old ^ new of each request's bytes in one pass as it copies them
            // in; raid6's takes the old data out of P and Q here and puts the new in below.
            boolean xorDelta = rmw && qd < 0;
            if (rmw && !xorDelta) {
                for (int d = 0; d < disks; d++) {
                    if (!isParity(d) && dirty[d] != 0) {
                        parityDelta(d, dirty[d]);
                    }
                }
            }
            boolean fua = false;
            Req[] whole = rmw || rebuild != 0 ? null : wholePages();
            if (whole != null) {
                // Every data member is overwritten whole by one request: parity straight from the
                // callers' buffers, members written from them too, no copy (md's skip_copy).
                fullStripeFromBuffers(whole, out);
                return;
            }
            for (Req r : batch) {
                MemorySegment page = page(r.disk());
                if (xorDelta) {
                    xorDelta(r, page);
                }
                if (r.op() == BioOp.WRITE) {
                    MemorySegment.copy(r.bio().data(), r.dataOff(), page, r.off(), r.len());
                } else {
                    page.asSlice(r.off(), r.len()).fill((byte) 0);
                }
                fua |= r.bio().fua();
            }
            if (batch.size() > 1) {
                level.batchedWrites.add(batch.size() - 1);
            }
            for (int d = 0; d < disks; d++) {
                valid[d] |= dirty[d];
            }
            if (rmw && !xorDelta) {
                for (int d = 0; d < disks; d++) {
                    if (!isParity(d) && dirty[d] != 0) {
                        parityDelta(d, dirty[d]);
                    }
                }
            } else if (!rmw) {
                computeParityInto(union, page(pd), qd < 0 ? null : page(qd));
            }
            valid[pd] |= union;
            if (qd >= 0) {
                valid[qd] |= union;
            }
            long[] toWrite = dirty.clone();
            toWrite[pd] = union;
            if (qd >= 0) {
                toWrite[qd] = union;
            }
            stage = 2;
            writeOut(toWrite, fua ? BioFlags.FUA : BioFlags.NONE, null, out);
            if (inFlight > 0) {
                return;
            }
        }
        end(out, IoStatus.OK, 0, null);
    }

    /** The one write request covering each data member's whole page, or null if the batch is not like that. */
    private Req[] wholePages() {
        Req[] whole = new Req[disks];
        for (Req r : batch) {
            if (r.op() != BioOp.WRITE || r.off() != 0 || r.len() != level.stripeBytes || whole[r.disk()] != null) {
                return null;
            }
            whole[r.disk()] = r;
        }
        for (int d = 0; d < disks; d++) {
            if (!isParity(d) && whole[d] == null) {
                return null;
            }
        }
        return whole;
    }

    /** Caller holds the lock. A full-stripe write from the requests' buffers. */
    private void fullStripeFromBuffers(Req[] whole, List<Runnable> out) {
        int width = level.geo.syndromeWidth();
        MemorySegment[] data = new MemorySegment[width];
        long[] offs = new long[width];
        boolean fua = false;
        direct = new MemorySegment[disks];
        directOff = new long[disks];
        for (int d = 0; d < disks; d++) {
            Req r = whole[d];
            if (r == null) {
                continue;
            }
            fua |= r.bio().fua();
            direct[d] = r.bio().data();
            directOff[d] = r.dataOff();
            data[slot[d]] = direct[d];
            offs[slot[d]] = directOff[d];
            // The page no longer holds the member's bytes.
            valid[d] = 0;
        }
        MemorySegment p = page(pd);
        MemorySegment q = qd < 0 ? null : page(qd);
        // Valid now: nothing reads the pages before this operation ends, and it ends after the parity writes.
        valid[pd] = all;
        if (qd >= 0) {
            valid[qd] = all;
        }
        if (batch.size() > 1) {
            level.batchedWrites.add(batch.size() - 1);
        }
        BioFlags flags = fua ? BioFlags.FUA : BioFlags.NONE;
        long[] toWrite = new long[disks];
        java.util.Arrays.fill(toWrite, all);
        stage = 2;
        if (level.journal == null && level.parityThreads() == ParityThreads.WORKERS) {
            // A stripe worker computes and writes P (and Q) while this thread writes the data
            // members; the worker counts as one I/O in flight until its parity writes are out.
            // (With a journal the record must hold the parity before any member is written.)
            long[] parity = new long[disks];
            parity[pd] = all;
            toWrite[pd] = 0;
            if (qd >= 0) {
                parity[qd] = all;
                toWrite[qd] = 0;
            }
            inFlight++;
            out.add(() -> StripeWorkers.execute(() -> parityOnWorker(data, offs, p, q, parity, flags)));
            writeOut(toWrite, flags, null, out);
        } else {
            fullParity(data, offs, p, q);
            writeOut(toWrite, flags, null, out);
        }
        direct = null;
        directOff = null;
    }

    /** P (and Q) of a whole stripe from the data members' sources, by syndrome slot. */
    private void fullParity(MemorySegment[] data, long[] offs, MemorySegment p, MemorySegment q) {
        if (q == null) {
            level.kernel().xor(data, offs, data.length, p, 0, level.stripeBytes);
        } else {
            level.kernel().genSyndrome(data, offs, data.length, p, 0, q, 0, level.stripeBytes);
        }
    }

    /**
     * On a stripe worker, without the lock: the full-stripe parity, then its writes. The pages are
     * this operation's alone until it ends, and it cannot end while this counts as in flight.
     */
    private void parityOnWorker(MemorySegment[] data, long[] offs, MemorySegment p, MemorySegment q, long[] mask,
                                BioFlags flags) {
        fullParity(data, offs, p, q);
        List<Runnable> out = new ArrayList<>(2);
        synchronized (this) {
            inFlight--;
            writeOut(mask, flags, null, out);
        }
        out.forEach(Runnable::run);
        schedule();
    }

    private boolean fullStripe(long[] full) {
        for (int d = 0; d < disks; d++) {
            if (!isParity(d) && full[d] != all) {
                return false;
            }
        }
        return true;
    }

    /* ---- Reads that cannot go straight to a member ---- */

    private void stepRead(List<Runnable> out) {
        Member[] readers = readers(null);
        if (stage == 0) {
            long[] need = new long[disks];
            rebuild = 0;
            for (Req r : batch) {
                long m = touched(r.off(), r.len());
                if (readers[r.disk()] != null) {
                    need[r.disk()] |= m & ~valid[r.disk()];
                } else {
                    rebuild |= m;
                }
            }
            if (rebuild != 0) {
                if (unsynced()) {
                    end(out, IoStatus.IO_ERROR, 0, null);
                    return;
                }
                // Rebuilt from what the members hold now, not from the cache: a read answered from
                // pages while every member is failing would hide the failure from the caller.
                for (int d = 0; d < disks; d++) {
                    if (readers[d] != null) {
                        need[d] |= rebuild;
                    }
                }
                level.reconstructions.increment();
            }
            stage = 1;
            readInto(need, readers, out);
            if (inFlight > 0) {
                return;
            }
        }
        if (rebuild != 0 && !reconstruct(rebuild, readers)) {
            end(out, IoStatus.IO_ERROR, 0, null);
            return;
        }
        for (Req r : batch) {
            MemorySegment.copy(page(r.disk()), r.off(), r.bio().data(), r.dataOff(), r.len());
        }
        end(out, IoStatus.OK, 0, null);
    }

    /* ---- Sync: resync, check, repair, recovery ---- */

    private void stepSync(List<Runnable> out) {
        Member target = sync.target;
        Member[] readers = readers(target);
        if (stage == 0) {
            if (target == null) {
                // A scrub reads the members, not what the cache remembers of them.
                java.util.Arrays.fill(valid, 0);
            } else if (target.state() != MemberState.REBUILDING) {
                end(out, IoStatus.OK, 0, Redundancy.Recovered.TARGET_FAILED);
                return;
            }
            long[] need = new long[disks];
            int unreadable = 0;
            for (int d = 0; d < disks; d++) {
                if (readers[d] != null) {
                    need[d] = all & ~valid[d];
                } else {
                    unreadable++;
                }
            }
            if (target == null && unreadable > 0) {
                end(out, IoStatus.OK, 0, null);
                return;
            }
            stage = 1;
            readInto(need, readers, out);
            if (inFlight > 0) {
                return;
            }
        }
        if (stage == 1) {
            if (target != null) {
                int s = target.slot();
                if (readers[s] == null) {
                    if (!reconstruct(all, readers)) {
                        end(out, IoStatus.OK, 0, Redundancy.Recovered.NO_SOURCE);
                        return;
                    }
                    if (isParity(s)) {
                        computeParityInto(all, page(pd), qd < 0 ? null : page(qd));
                        valid[pd] = all;
                        if (qd >= 0) {
                            valid[qd] = all;
                        }
                    }
                }
                long[] toWrite = new long[disks];
                toWrite[s] = all;
                stage = 2;
                writeOut(toWrite, BioFlags.NONE, target, out);
            } else {
                long mismatched = scrub(out);
                sync.mismatches = mismatched;
                stage = 2;
            }
            if (inFlight > 0) {
                return;
            }
        }
        if (target != null) {
            end(out, IoStatus.OK, 0, target.state() == MemberState.REBUILDING
                    ? Redundancy.Recovered.COPIED : Redundancy.Recovered.TARGET_FAILED);
        } else {
            end(out, IoStatus.OK, sync.mismatches, null);
        }
    }

    /** Compares P (and Q) with what the data says they must be; with {@code fix} rewrites those that differ. */
    private long scrub(List<Runnable> out) {
        MemorySegment p = MemorySegment.ofArray(new byte[level.stripeBytes]);
        MemorySegment q = qd < 0 ? null : MemorySegment.ofArray(new byte[level.stripeBytes]);
        computeParityInto(all, p, q);
        long[] toWrite = new long[disks];
        long mismatched = 0;
        int[] parity = qd < 0 ? new int[] {pd} : new int[] {pd, qd};
        MemorySegment[] fresh = qd < 0 ? new MemorySegment[] {p} : new MemorySegment[] {p, q};
        for (int i = 0; i < parity.length; i++) {
            MemorySegment have = page(parity[i]);
            for (int b = 0; b < blocks; b++) {
                long o = (long) b * Raid5.BLOCK;
                if (MemorySegment.mismatch(have, o, o + Raid5.BLOCK, fresh[i], o, o + Raid5.BLOCK) >= 0) {
                    mismatched += SECTORS_PER_BLOCK;
                    toWrite[parity[i]] |= 1L << b;
                    if (sync.fix) {
                        MemorySegment.copy(fresh[i], o, have, o, Raid5.BLOCK);
                    }
                }
            }
        }
        if (sync.fix) {
            writeOut(toWrite, BioFlags.NONE, null, out);
        }
        return mismatched;
    }

    /* ---- Parity maths over the pages ---- */

    /** P (and Q) of the runs of {@code mask} from the data pages, into {@code p} and {@code q}. */
    private void computeParityInto(long mask, MemorySegment p, MemorySegment q) {
        int width = level.geo.syndromeWidth();
        MemorySegment[] data = new MemorySegment[width];
        long[] offs = new long[width];
        for (int d = 0; d < disks; d++) {
            if (slot[d] >= 0) {
                data[slot[d]] = page(d);
            }
        }
        forRuns(mask, (off, len) -> {
            for (int i = 0; i < width; i++) {
                offs[i] = off;
            }
            if (q == null) {
                level.kernel().xor(data, offs, width, p, off, len);
            } else {
                level.kernel().genSyndrome(data, offs, width, p, off, q, off, len);
            }
        });
    }

    /**
     * raid5 rmw: {@code P ^= old ^ new} over one request's bytes, before they are copied into
     * {@code page} (which holds the old data); a zeroing request's new bytes are zeros. Requests
     * of a batch that overlap are right too: each one's old bytes are what the one before left.
     */
    private void xorDelta(Req r, MemorySegment page) {
        boolean write = r.op() == BioOp.WRITE;
        MemorySegment[] srcs = write ? new MemorySegment[] {page, r.bio().data()} : new MemorySegment[] {page};
        long[] offs = write ? new long[] {r.off(), r.dataOff()} : new long[] {r.off()};
        level.kernel().xorInto(srcs, offs, srcs.length, page(pd), r.off(), r.len());
    }

    /** Adds (or, applied twice, removes) data slot {@code d}'s blocks of {@code mask} to P and Q. */
    private void parityDelta(int d, long mask) {
        MemorySegment src = page(d);
        if (qd < 0) {
            MemorySegment[] one = {src};
            long[] offs = new long[1];
            forRuns(mask, (off, len) -> {
                offs[0] = off;
                level.kernel().xorInto(one, offs, 1, page(pd), off, len);
            });
            return;
        }
        int s = slot[d];
        MemorySegment[] data = new MemorySegment[s + 1];
        long[] offs = new long[s + 1];
        data[s] = src;
        forRuns(mask, (off, len) -> {
            offs[s] = off;
            level.kernel().xorSyndrome(data, offs, s, s, page(pd), off, page(qd), off, len);
        });
    }

    /**
     * Rebuilds the blocks of {@code mask} of every data member that cannot be read, from the
     * others (which the caller has read). False if too many are missing.
     */
    private boolean reconstruct(long mask, Member[] readers) {
        List<Integer> lost = new ArrayList<>(2);
        for (int d = 0; d < disks; d++) {
            if (!isParity(d) && readers[d] == null) {
                lost.add(d);
            }
        }
        if (lost.isEmpty()) {
            return true;
        }
        boolean pOk = readers[pd] != null || (valid[pd] & mask) == mask;
        boolean qOk = qd >= 0 && (readers[qd] != null || (valid[qd] & mask) == mask);
        int width = level.geo.syndromeWidth();
        if (lost.size() == 1 && pOk) {
            int x = lost.getFirst();
            MemorySegment[] srcs = new MemorySegment[disks - 1];
            long[] offs = new long[disks - 1];
            int n = 0;
            for (int d = 0; d < disks; d++) {
                if (d != x && d != qd) {
                    srcs[n++] = page(d);
                }
            }
            int count = n;
            forRuns(mask, (off, len) -> {
                java.util.Arrays.fill(offs, off);
                level.kernel().xor(srcs, offs, count, page(x), off, len);
            });
        } else if (lost.size() == 1 && qOk) {
            // Data and P lost: Q' without x, then Dx = (Q ^ Q') / g^x.
            int x = lost.getFirst();
            MemorySegment tmpP = MemorySegment.ofArray(new byte[level.stripeBytes]);
            MemorySegment tmpQ = MemorySegment.ofArray(new byte[level.stripeBytes]);
            MemorySegment[] data = dataBySlot(width, x, -1);
            long[] offs = new long[width];
            int inv = Gf256.inv(Gf256.pow2(slot[x]));
            forRuns(mask, (off, len) -> {
                java.util.Arrays.fill(offs, off);
                level.kernel().genSyndrome(data, offs, width, tmpP, off, tmpQ, off, len);
                xorRange(page(qd), tmpQ, off, len);
                Gf256.mulInto(inv, tmpQ, off, page(x), off, len);
            });
        } else if (lost.size() == 2 && pOk && qOk) {
            int x = lost.get(0);
            int y = lost.get(1);
            int sx = Math.min(slot[x], slot[y]);
            int sy = Math.max(slot[x], slot[y]);
            int dx = slot[x] == sx ? x : y;
            int dy = dx == x ? y : x;
            MemorySegment tmpP = MemorySegment.ofArray(new byte[level.stripeBytes]);
            MemorySegment tmpQ = MemorySegment.ofArray(new byte[level.stripeBytes]);
            MemorySegment[] data = dataBySlot(width, x, y);
            long[] offs = new long[width];
            forRuns(mask, (off, len) -> {
                java.util.Arrays.fill(offs, off);
                level.kernel().genSyndrome(data, offs, width, tmpP, off, tmpQ, off, len);
                xorRange(page(pd), tmpP, off, len);
                xorRange(page(qd), tmpQ, off, len);
                Gf256.recoverTwoData(sx, sy, tmpP, off, tmpQ, off, page(dx), off, page(dy), off, len);
            });
        } else {
            return false;
        }
        for (int d : lost) {
            valid[d] |= mask;
        }
        return true;
    }

    private MemorySegment[] dataBySlot(int width, int skipA, int skipB) {
        MemorySegment[] data = new MemorySegment[width];
        for (int d = 0; d < disks; d++) {
            if (slot[d] >= 0 && d != skipA && d != skipB) {
                data[slot[d]] = page(d);
            }
        }
        return data;
    }

    /** {@code into ^= from} over a range (degraded raid6 only). */
    private void xorRange(MemorySegment from, MemorySegment into, long off, long len) {
        level.kernel().xorInto(new MemorySegment[] {from}, new long[] {off}, 1, into, off, len);
    }

    /* ---- Member I/O ---- */

    /** Who can read each slot over this head ({@code except} never: it is being rebuilt). */
    private Member[] readers(Member except) {
        MemberSet.Table t = level.members.table();
        Member[] out = new Member[disks];
        for (int d = 0; d < disks; d++) {
            Member m = Raid5.reader(t, d, addr, level.stripeBytes);
            out[d] = m == except ? null : m;
        }
        return out;
    }

    /** Caller holds the lock. Reads the blocks of {@code need} of each member into its page. */
    private void readInto(long[] need, Member[] readers, List<Runnable> out) {
        for (int d = 0; d < disks; d++) {
            if (need[d] == 0) {
                continue;
            }
            Member m = readers[d];
            int disk = d;
            MemorySegment page = page(d);
            forRuns(need[d], (off, len) -> {
                inFlight++;
                MemberIo io = new MemberIo(this, m, disk, runMask(off, len));
                Bio b = Bio.of(BioOp.READ, m.dataOffset() + addr + off, len, BioFlags.NONE, page.asSlice(off, len), io);
                out.add(() -> m.device().submit(b));
            });
        }
    }

    /**
     * Caller holds the lock. Writes the blocks of {@code mask} of each slot to its members (the
     * slot's and a replacement's), or only to {@code only} when given (recovery).
     */
    private void writeOut(long[] mask, BioFlags flags, Member only, List<Runnable> out) {
        MemberSet.Table t = level.members.table();
        boolean journaled = level.journal != null && kind == Kind.WRITE;
        List<Runnable> submits = new ArrayList<>();
        List<StripeJournal.Entry> entries = new ArrayList<>();
        for (int d = 0; d < disks; d++) {
            if (mask[d] == 0) {
                continue;
            }
            Member[] targets = only != null ? new Member[] {only} : new Member[] {t.slots()[d], t.replacements()[d]};
            boolean fromCaller = direct != null && direct[d] != null;
            MemorySegment page = fromCaller ? direct[d] : page(d);
            long base = fromCaller ? directOff[d] : 0;
            int disk = d;
            boolean logged = false;
            for (Member m : targets) {
                if (m == null || !m.writable()) {
                    continue;
                }
                if (journaled && !logged) {
                    logged = true;
                    forRuns(mask[d], (off, len) -> entries.add(new StripeJournal.Entry(disk, (int) off, (int) len,
                            page.asSlice(base + off, len))));
                }
                forRuns(mask[d], (off, len) -> {
                    inFlight++;
                    MemberIo io = new MemberIo(this, m, disk, 0);
                    Bio b = Bio.of(BioOp.WRITE, m.dataOffset() + addr + off, len, flags, page.asSlice(base + off, len), io);
                    submits.add(() -> m.device().submit(b));
                });
            }
        }
        if (journaled && !submits.isEmpty() && this.journaled > 0) {
            // A member failed under the batch and it planned again: the same new data and parity
            // for fewer members, which the batch's durable record already holds. Logging them again
            // could wait for journal space that only this batch's own retirement frees.
            out.addAll(submits);
        } else if (journaled && !submits.isEmpty()) {
            // Write-through journal: the members are written only once the record is durable.
            this.journaled++;
            int count = submits.size();
            out.add(() -> level.journal.append(key, entries, () -> submits.forEach(Runnable::run), () -> refuse(count)));
        } else {
            out.addAll(submits);
        }
    }

    /** The journal refused the record of {@code writes} member writes counted in flight: none will run. */
    private void refuse(int writes) {
        synchronized (this) {
            inFlight -= writes;
            refused = true;
        }
        schedule();
    }

    /** A member read or write of this head; on completion records the result and runs the head again. */
    private record MemberIo(StripeHead head, Member member, int disk, long blocksRead) implements BioCallback {
        @Override
        public void done(Bio bio) {
            boolean ok = bio.status().ok();
            synchronized (head) {
                head.inFlight--;
                if (ok && bio.op() == BioOp.READ) {
                    head.valid[disk] |= blocksRead;
                } else if (!ok) {
                    head.ioFailed = true;
                }
            }
            if (!ok) {
                head.level.members.failed(member, bio.op() == BioOp.READ ? "read error" : "write error");
            }
            head.schedule();
        }
    }

    /* ---- Masks and pages ---- */

    private boolean isParity(int d) {
        return d == pd || d == qd;
    }

    /** True if the head's parity may never have been computed ({@link Raid5#unsyncedRow}). */
    private boolean unsynced() {
        return level.unsyncedRow(row);
    }

    private MemorySegment page(int d) {
        MemorySegment p = pages[d];
        if (p == null) {
            p = level.cache.page();
            pages[d] = p;
        }
        return p;
    }

    /** Hands this evicted head's pages to {@code pool}; called by the cache, with the head idle. Returns how many. */
    int givePages(java.util.Queue<MemorySegment> pool) {
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

    /** Blocks touched by {@code [off, off+len)}. */
    private static long touched(int off, int len) {
        int first = off / Raid5.BLOCK;
        int last = (off + len - 1) / Raid5.BLOCK;
        return bits(first, last + 1);
    }

    /** Blocks wholly inside {@code [off, off+len)}. */
    private static long covered(int off, int len) {
        int first = (off + Raid5.BLOCK - 1) / Raid5.BLOCK;
        int end = (off + len) / Raid5.BLOCK;
        return end > first ? bits(first, end) : 0;
    }

    private static long runMask(long off, long len) {
        return bits((int) (off / Raid5.BLOCK), (int) ((off + len) / Raid5.BLOCK));
    }

    private static long bits(int from, int to) {
        long hi = to >= 64 ? -1L : (1L << to) - 1;
        long lo = (1L << from) - 1;
        return hi & ~lo;
    }

    private interface Run {
        void at(long off, long len);
    }

    /** Calls {@code run} for each run of consecutive set blocks, as byte ranges. */
    private static void forRuns(long mask, Run run) {
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
