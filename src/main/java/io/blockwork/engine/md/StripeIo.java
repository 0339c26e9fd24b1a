package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * One stripe head's member I/O (md's {@code ops_run_io} and {@code raid5_end_read_request} /
 * {@code raid5_end_write_request}): who can read each slot, the member reads and writes a plan
 * asks for, the write journal's record before the writes, and the completions, which record
 * their result (blocks now valid, or a member failed) and run the head again. It decides nothing
 * about what to read or write ({@link StripePlan}) and computes nothing ({@link StripeParity}).
 *
 * <p>Locking: every field below is guarded by the head's monitor. {@link #read} and
 * {@link #write} are called holding it and only collect the submissions into the head's list of
 * work, which the head runs after unlocking; a completion takes it only to record its result,
 * then fails the member and schedules the head outside it.
 */
final class StripeIo {

    private final StripeHead head;
    private final Raid5 level;
    private final StripePages s;

    /** Member bios (and a stripe worker's parity pass, {@link #workerStarted}) not yet done. */
    private int inFlight;
    /** A member read or write failed since the head last looked. */
    private boolean failed;
    /** The journal refused this batch's record (failed, or pinned and full): the batch fails, members untouched. */
    private boolean refused;
    /**
     * Journal records the running write batch has logged (one): retired when the batch succeeds,
     * else it pins the journal (StripeJournal#pin).
     */
    private int journaled;

    StripeIo(StripeHead head, StripePages pages) {
        this.head = head;
        this.level = pages.level;
        this.s = pages;
    }

    /** True while member I/O (or a stripe worker) of the operation is outstanding. */
    boolean busy() {
        return inFlight > 0;
    }

    /** A stripe worker took over part of the operation: it counts as one I/O in flight until {@link #workerDone}. */
    void workerStarted() {
        inFlight++;
    }

    void workerDone() {
        inFlight--;
    }

    /** Whether a member failed under the operation since the last call (it must plan again). */
    boolean takeFailure() {
        boolean f = failed;
        failed = false;
        return f;
    }

    /** Whether the journal refused the batch's record since the last call. */
    boolean takeRefusal() {
        boolean r = refused;
        refused = false;
        return r;
    }

    /** The journal records the ending write batch logged, now the batch's to retire or pin. */
    int takeJournaled() {
        int n = journaled;
        journaled = 0;
        return n;
    }

    /** Who can read each slot over this head ({@code except} never: it is being rebuilt). */
    Member[] readers(Member except) {
        MemberSet.Table t = level.members.table();
        Member[] out = new Member[s.disks];
        for (int d = 0; d < s.disks; d++) {
            Member m = Raid5.reader(t, d, s.addr, s.bytes);
            out[d] = m == except ? null : m;
        }
        return out;
    }

    /** Reads the blocks of {@code need} of each member into its page. */
    void read(long[] need, Member[] readers, List<Runnable> out) {
        for (int d = 0; d < s.disks; d++) {
            if (need[d] == 0) {
                continue;
            }
            Member m = readers[d];
            int disk = d;
            MemorySegment page = s.page(d);
            BlockMask.forRuns(need[d], (off, len) -> {
                inFlight++;
                MemberIo io = new MemberIo(this, m, disk, BlockMask.ofRun(off, len));
                Bio b = Bio.of(BioOp.READ, m.dataOffset() + s.addr + off, len, BioFlags.NONE, page.asSlice(off, len), io);
                out.add(() -> m.device().submit(b));
            });
        }
    }

    /** {@link #write(long[], BioFlags, Member, boolean, MemorySegment[], long[], List)} from the pages. */
    void write(long[] mask, BioFlags flags, Member only, boolean batch, List<Runnable> out) {
        write(mask, flags, only, batch, null, null, out);
    }

    /**
     * Writes the blocks of {@code mask} of each slot to its members (the slot's and a
     * replacement's), or only to {@code only} when given (recovery). A slot's bytes come from
     * {@code direct[d]} at {@code directOff[d]} when given (a full-stripe write from the callers'
     * buffers), else from its page. With {@code batch} (a write batch's writes) on an array with
     * a journal, the members are written only once the journal holds them.
     */
    void write(long[] mask, BioFlags flags, Member only, boolean batch, MemorySegment[] direct, long[] directOff,
               List<Runnable> out) {
        MemberSet.Table t = level.members.table();
        boolean logged = level.journal != null && batch;
        List<Runnable> submits = new ArrayList<>();
        List<StripeJournal.Entry> entries = new ArrayList<>();
        for (int d = 0; d < s.disks; d++) {
            if (mask[d] == 0) {
                continue;
            }
            Member[] targets = only != null ? new Member[] {only} : new Member[] {t.slots()[d], t.replacements()[d]};
            boolean fromCaller = direct != null && direct[d] != null;
            MemorySegment page = fromCaller ? direct[d] : s.page(d);
            long base = fromCaller ? directOff[d] : 0;
            int disk = d;
            boolean entered = false;
            for (Member m : targets) {
                if (m == null || !m.writable()) {
                    continue;
                }
                if (logged && !entered) {
                    entered = true;
                    BlockMask.forRuns(mask[d], (off, len) -> entries.add(new StripeJournal.Entry(disk, (int) off, (int) len,
                            page.asSlice(base + off, len))));
                }
                BlockMask.forRuns(mask[d], (off, len) -> {
                    inFlight++;
                    MemberIo io = new MemberIo(this, m, disk, 0);
                    Bio b = Bio.of(BioOp.WRITE, m.dataOffset() + s.addr + off, len, flags, page.asSlice(base + off, len), io);
                    submits.add(() -> m.device().submit(b));
                });
            }
        }
        if (logged && !submits.isEmpty() && journaled > 0) {
            // A member failed under the batch and it planned again: the same new data and parity
            // for fewer members, which the batch's durable record already holds. Logging them again
            // could wait for journal space that only this batch's own retirement frees.
            out.addAll(submits);
        } else if (logged && !submits.isEmpty()) {
            // Write-through journal: the members are written only once the record is durable.
            journaled++;
            int count = submits.size();
            out.add(() -> level.journal.append(head.key, entries, () -> submits.forEach(Runnable::run), () -> refuse(count)));
        } else {
            out.addAll(submits);
        }
    }

    /** The journal refused the record of {@code writes} member writes counted in flight: none will run. */
    private void refuse(int writes) {
        synchronized (head) {
            inFlight -= writes;
            refused = true;
        }
        head.schedule();
    }

    /** A member read or write of this head; on completion records the result and runs the head again. */
    private record MemberIo(StripeIo io, Member member, int disk, long blocksRead) implements BioCallback {
        @Override
        public void done(Bio bio) {
            boolean ok = bio.status().ok();
            synchronized (io.head) {
                io.inFlight--;
                if (ok && bio.op() == BioOp.READ) {
                    io.s.valid[disk] |= blocksRead;
                } else if (!ok) {
                    io.failed = true;
                }
            }
            if (!ok) {
                io.level.members.failed(member, bio.op() == BioOp.READ ? "read error" : "write error");
            }
            io.head.schedule();
        }
    }
}
