package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
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
 *   <li><b>Cache</b>: pages hold what the members hold ({@link StripePages#valid} per 4 KiB block); writes
 *       complete only after the members have them, so the cache is never dirty, and flush/FUA
 *       are the members' (FUA rides on every member write of a batch that carries one).
 *   <li><b>Threads</b>: whoever schedules the head runs it ({@link #schedule}); member completions
 *       (possibly inline, on the same thread) only record their result and schedule it again, so
 *       the work loops instead of recursing. Member I/O is submitted and bios completed outside
 *       the head's lock.
 * </ul>
 *
 * <p>This class is the state machine and its queues; the rest is split by what it does, all
 * under this head's monitor: {@link StripePages} (where the head lies, its pages and which blocks
 * of them are valid), {@link StripePlan} (what an operation must read: rmw or rcw, what to
 * rebuild), {@link StripeParity} (the maths over the pages) and {@link StripeIo} (member reads
 * and writes, the journal record, completions and the count in flight).
 *
 * <p>Size note: over 400 lines because the one state machine serves writes (rmw, rcw and the
 * full stripe from the callers' buffers), reads and sync requests; each step's order of plan,
 * read, rebuild, compute and write is clearest read in one place.
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

    final Raid5 level;
    final long key;

    /** Guarded by the cache's lock. */
    int refs;

    // Guarded by this, with the contents of the pages, the plan and the I/O state below.
    private final StripePages s;
    private final StripePlan plan;
    private final StripeIo io;
    private final ArrayDeque<Req> reads = new ArrayDeque<>();
    private final ArrayDeque<Req> writes = new ArrayDeque<>();
    private SyncOp syncRequest;
    private boolean running;
    private boolean again;
    // The operation in progress.
    private Kind kind;
    private int stage;
    private List<Req> batch;
    private SyncOp sync;

    StripeHead(Raid5 level, long key) {
        this.level = level;
        this.key = key;
        this.s = new StripePages(level, key);
        this.plan = new StripePlan(s);
        this.io = new StripeIo(this, s);
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
        if (io.busy()) {
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
        if (io.takeRefusal()) {
            end(out, IoStatus.IO_ERROR, 0, null);
            return;
        }
        if (io.takeFailure()) {
            // A member failed under us: plan again with the members that are left.
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
        if (!io.busy() && kind != null) {
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
        SyncOp op = sync;
        kind = null;
        batch = null;
        sync = null;
        again = true;
        if (k == Kind.SYNC) {
            out.add(() -> {
                op.finish(mismatched, how);
                level.cache.release(this, 1);
            });
        } else {
            int records = io.takeJournaled();
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
        Member[] readers = io.readers(null);
        if (stage == 0) {
            if (!plan.write(batch, readers, unsynced())) {
                end(out, IoStatus.IO_ERROR, 0, null);
                return;
            }
            stage = 1;
            io.read(plan.reads, readers, out);
            if (io.busy()) {
                return;
            }
        }
        if (stage == 1) {
            boolean rmw = plan.rmw;
            long[] dirty = plan.dirty;
            long union = plan.union;
            if (plan.rebuild != 0 && !StripeParity.reconstruct(s, plan.rebuild, readers)) {
                end(out, IoStatus.IO_ERROR, 0, null);
                return;
            }
            // raid5's rmw moves P by old ^ new of each request's bytes in one pass as it copies them
            // in; raid6's takes the old data out of P and Q here and puts the new in below.
            boolean xorDelta = rmw && s.qd < 0;
            if (rmw && !xorDelta) {
                StripeParity.deltas(s, dirty);
            }
            Req[] whole = rmw || plan.rebuild != 0 ? null : plan.wholePages(batch);
            if (whole != null) {
                // Every data member is overwritten whole by one request: parity straight from the
                // callers' buffers, members written from them too, no copy (md's skip_copy).
                fullStripeFromBuffers(whole, out);
                return;
            }
            boolean fua = false;
            for (Req r : batch) {
                MemorySegment page = s.page(r.disk());
                if (xorDelta) {
                    StripeParity.xorDelta(s, r);
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
            for (int d = 0; d < s.disks; d++) {
                s.valid[d] |= dirty[d];
            }
            if (rmw && !xorDelta) {
                StripeParity.deltas(s, dirty);
            } else if (!rmw) {
                StripeParity.compute(s, union);
            }
            s.markParity(union);
            long[] toWrite = dirty.clone();
            toWrite[s.pd] = union;
            if (s.qd >= 0) {
                toWrite[s.qd] = union;
            }
            stage = 2;
            io.write(toWrite, fua ? BioFlags.FUA : BioFlags.NONE, null, true, out);
            if (io.busy()) {
                return;
            }
        }
        end(out, IoStatus.OK, 0, null);
    }

    /** Caller holds the lock. A full-stripe write from the requests' buffers. */
    private void fullStripeFromBuffers(Req[] whole, List<Runnable> out) {
        int disks = s.disks;
        MemorySegment[] direct = new MemorySegment[disks];
        long[] directOff = new long[disks];
        boolean fua = false;
        for (int d = 0; d < disks; d++) {
            Req r = whole[d];
            if (r == null) {
                continue;
            }
            fua |= r.bio().fua();
            direct[d] = r.bio().data();
            directOff[d] = r.dataOff();
            // The page no longer holds the member's bytes.
            s.valid[d] = 0;
        }
        MemorySegment p = s.page(s.pd);
        MemorySegment q = s.qPage();
        // Valid now: nothing reads the pages before this operation ends, and it ends after the parity writes.
        s.markParity(s.all);
        if (batch.size() > 1) {
            level.batchedWrites.add(batch.size() - 1);
        }
        BioFlags flags = fua ? BioFlags.FUA : BioFlags.NONE;
        long[] toWrite = new long[disks];
        Arrays.fill(toWrite, s.all);
        stage = 2;
        if (level.journal == null && level.parityThreads() == ParityThreads.WORKERS) {
            // A stripe worker computes and writes P (and Q) while this thread writes the data
            // members; the worker counts as one I/O in flight until its parity writes are out.
            // (With a journal the record must hold the parity before any member is written.)
            long[] parity = new long[disks];
            parity[s.pd] = s.all;
            toWrite[s.pd] = 0;
            if (s.qd >= 0) {
                parity[s.qd] = s.all;
                toWrite[s.qd] = 0;
            }
            io.workerStarted();
            out.add(() -> StripeWorkers.execute(() -> parityOnWorker(direct, directOff, p, q, parity, flags)));
        } else {
            StripeParity.full(s, direct, directOff, p, q);
        }
        io.write(toWrite, flags, null, true, direct, directOff, out);
    }

    /**
     * On a stripe worker, without the lock: the full-stripe parity, then its writes. The pages are
     * this operation's alone until it ends, and it cannot end while this counts as in flight.
     */
    private void parityOnWorker(MemorySegment[] direct, long[] directOff, MemorySegment p, MemorySegment q,
                                long[] mask, BioFlags flags) {
        StripeParity.full(s, direct, directOff, p, q);
        List<Runnable> out = new ArrayList<>(2);
        synchronized (this) {
            io.workerDone();
            io.write(mask, flags, null, true, out);
        }
        out.forEach(Runnable::run);
        schedule();
    }

    /* ---- Reads that cannot go straight to a member ---- */

    private void stepRead(List<Runnable> out) {
        Member[] readers = io.readers(null);
        if (stage == 0) {
            if (!plan.read(batch, readers, unsynced())) {
                end(out, IoStatus.IO_ERROR, 0, null);
                return;
            }
            stage = 1;
            io.read(plan.reads, readers, out);
            if (io.busy()) {
                return;
            }
        }
        if (plan.rebuild != 0 && !StripeParity.reconstruct(s, plan.rebuild, readers)) {
            end(out, IoStatus.IO_ERROR, 0, null);
            return;
        }
        for (Req r : batch) {
            MemorySegment.copy(s.page(r.disk()), r.off(), r.bio().data(), r.dataOff(), r.len());
        }
        end(out, IoStatus.OK, 0, null);
    }

    /* ---- Sync: resync, check, repair, recovery ---- */

    private void stepSync(List<Runnable> out) {
        Member target = sync.target;
        Member[] readers = io.readers(target);
        if (stage == 0) {
            if (target == null) {
                // A scrub reads the members, not what the cache remembers of them.
                Arrays.fill(s.valid, 0);
            } else if (target.state() != MemberState.REBUILDING) {
                end(out, IoStatus.OK, 0, Redundancy.Recovered.TARGET_FAILED);
                return;
            }
            int unreadable = plan.sync(readers);
            if (target == null && unreadable > 0) {
                end(out, IoStatus.OK, 0, null);
                return;
            }
            stage = 1;
            io.read(plan.reads, readers, out);
            if (io.busy()) {
                return;
            }
        }
        if (stage == 1) {
            if (target != null) {
                int t = target.slot();
                if (readers[t] == null) {
                    if (!StripeParity.reconstruct(s, s.all, readers)) {
                        end(out, IoStatus.OK, 0, Redundancy.Recovered.NO_SOURCE);
                        return;
                    }
                    if (s.isParity(t)) {
                        StripeParity.compute(s, s.all);
                        s.markParity(s.all);
                    }
                }
                long[] toWrite = new long[s.disks];
                toWrite[t] = s.all;
                stage = 2;
                io.write(toWrite, BioFlags.NONE, target, false, out);
            } else {
                // Compares P (and Q) with what the data says they must be; a repair rewrites those that differ.
                StripeParity.Scrub found = StripeParity.scrub(s, sync.fix);
                sync.mismatches = found.mismatchedSectors();
                if (sync.fix) {
                    io.write(found.differing(), BioFlags.NONE, null, false, out);
                }
                stage = 2;
            }
            if (io.busy()) {
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

    /** True if the head's parity may never have been computed ({@link Raid5#unsyncedRow}). */
    private boolean unsynced() {
        return level.unsyncedRow(s.row);
    }

    /** Hands this evicted head's pages to {@code pool}; called by the cache, with the head idle. Returns how many. */
    int givePages(Queue<MemorySegment> pool) {
        return s.givePages(pool);
    }
}
