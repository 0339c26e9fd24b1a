package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.md.metadata.WriteIntentBitmap;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What raid1 and raid10 share: every block has several copies, each at some (slot, address); a
 * subclass only says where ({@link #place}). This class does the rest, for both levels:
 *
 * <ul>
 *   <li><b>Reads</b> go to one readable copy, chosen to spread load; an error marks that member
 *       faulty and the read moves on to the next copy, so the caller sees an error only when no
 *       copy is left. Above the resync point (md's {@code recovery_cp}) reads always start at the
 *       first copy, which is the one resync propagates.
 *   <li><b>Writes</b> (and discards, write-zeroes) go to every writable member holding a copy,
 *       rebuilding ones and replacements included, FUA passed down; a member that fails is marked
 *       faulty, and the write succeeds if any copy was written. The array's {@link ArrayMetadata}
 *       comes first (md_write_start and the bitmap's startwrite): a write waits until the
 *       superblocks say the array is active, its bitmap bits are durable and no member failure is
 *       unrecorded; a write that saw a member fail completes only once the survivors' superblocks
 *       record the failure.
 *   <li><b>Barriers</b>: I/O the {@link ResyncBarrier} covers is admitted before it looks at the
 *       member table, so a sync window that raised the barrier sees no in-flight I/O that read an
 *       older table; a parked bio comes back through {@link #admitted}.
 *   <li><b>Sync windows</b> for the daemon: resync/check/repair compare the in-sync copies of a
 *       window, recovery copies a window onto a rebuilding member. Both hold the barrier for the
 *       window's scope while they read and write.
 * </ul>
 *
 * <p>The I/O path takes no lock: per read it allocates the child bio, its data slice and one
 * small state object; per write one state object plus a child and slice per copy.
 *
 * <p>Size note: over 400 lines because reads, writes (with their metadata ordering) and sync
 * windows share the copy-placement and member-failure rules that raid1 and raid10 have in common;
 * each level adds only placement.
 */
abstract sealed class Mirrored implements Personality, Redundancy permits Raid1, Raid10 {

    /** Largest resync or recovery window. */
    static final long WINDOW = 1L << 20;
    /** Mismatches are counted per page of this size, in 512-byte sectors (md's mismatch_cnt unit). */
    private static final int COMPARE_UNIT = 4096;
    /** {@link #place} packs the slot above the byte address. */
    private static final int SLOT_SHIFT = 56;
    private static final long ADDR_MASK = (1L << SLOT_SHIFT) - 1;

    private static final VarHandle REMAINING;

    static {
        try {
            REMAINING = MethodHandles.lookup().findVarHandle(Write.class, "remaining", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final MemberSet members;
    final ResyncBarrier barrier;
    /** Set once by the array before any I/O. */
    private ArrayMetadata metadata = ArrayMetadata.NONE;
    /** Array bytes below this are known to agree across copies; {@link Long#MAX_VALUE} when clean. */
    private volatile long resyncPoint;

    Mirrored(MemberSet members, boolean clean, Function<Consumer<Bio>, ResyncBarrier> barrierFactory) {
        this.members = members;
        this.resyncPoint = clean ? Long.MAX_VALUE : 0;
        this.barrier = barrierFactory.apply(this::admitted);
    }

    /* ---- What a level says ---- */

    /** Copies of each block. */
    abstract int copies();

    /** Where copy {@code copy} of array byte {@code offset} lives: {@link #slotOf} and {@link #addrOf} unpack it. */
    abstract long place(long offset, int copy);

    /** True if {@code bio} must pass the barrier (raid10: all I/O; raid1: writes only). */
    abstract boolean barrierCovers(Bio bio);

    /** The copy a balanced read starts from. */
    abstract int preferredCopy(long offset);

    /** Bytes from {@code offset} the resync window starting there covers. */
    abstract long syncWindowAt(long offset);

    /** Bytes of each member a recovery rebuilds. */
    abstract long recoveryBytes();

    /** Bytes from member offset {@code addr} one recovery window covers. */
    abstract long recoveryWindowAt(long addr);

    /** The array byte stored at {@code addr} of slot {@code slot}, or -1 if the place holds no data. */
    abstract long arrayOffsetOf(int slot, long addr);

    static long at(int slot, long addr) {
        return (long) slot << SLOT_SHIFT | addr;
    }

    static int slotOf(long placed) {
        return (int) (placed >>> SLOT_SHIFT);
    }

    static long addrOf(long placed) {
        return placed & ADDR_MASK;
    }

    long resyncPoint() {
        return resyncPoint;
    }

    @Override
    public final void metadata(ArrayMetadata m) {
        this.metadata = m;
    }

    @Override
    public final ArrayMetadata metadata() {
        return metadata;
    }

    void resyncPoint(long offset) {
        resyncPoint = offset;
    }

    /* ---- Redundancy: the daemon's view ---- */

    @Override
    public final long syncedTo() {
        return resyncPoint;
    }

    @Override
    public final void syncedTo(long offset) {
        resyncPoint = offset;
    }

    @Override
    public final long scrubWindowAt(long offset) {
        return syncWindowAt(offset);
    }

    @Override
    public final long scrub(long offset, long len, boolean fix, MemorySegment[] buffers) {
        return syncWindow(offset, len, fix, buffers);
    }

    @Override
    public final int scrubBuffers() {
        return copies();
    }

    @Override
    public final long rebuildBytes() {
        return recoveryBytes();
    }

    @Override
    public final long rebuildWindowAt(long addr) {
        return recoveryWindowAt(addr);
    }

    @Override
    public final Recovered rebuild(Member target, long addr, long len, MemorySegment buffer) {
        return recoverWindow(target, addr, len, buffer);
    }

    /* ---- The I/O path ---- */

    @Override
    public final void submit(Bio bio) {
        if (barrierCovers(bio) && !barrier.enter(bio)) {
            return;
        }
        admitted(bio);
    }

    /** Runs an admitted bio (also the barrier's resume callback for parked ones). */
    final void admitted(Bio bio) {
        if (members.lostReason() != null) {
            finish(bio, IoStatus.IO_ERROR);
        } else if (bio.op() == BioOp.READ) {
            int first = bio.end() > resyncPoint ? 0 : preferredCopy(bio.offset());
            new Read(this, bio, first).next();
        } else {
            write(bio);
        }
    }

    /**
     * Piece by piece (no piece crosses the level's boundary, so each copy is one contiguous member
     * range), the union of what the readable copies hold: a read may be served by any of them, so
     * the range is a hole only where every one has a hole. No readable copy: data (reads fail).
     */
    @Override
    public final void allocation(long offset, long length, Extents out) {
        MemberSet.Table t = members.table();
        long boundary = boundaryBytes();
        long end = offset + length;
        List<Extents> answers = new ArrayList<>(copies());
        for (long pos = offset; pos < end && !out.stopped(); ) {
            long len = boundary == 0 ? end - pos : Math.min(end - pos, boundary - pos % boundary);
            answers.clear();
            for (int copy = 0, n = copies(); copy < n; copy++) {
                long placed = place(pos, copy);
                Member m = readable(t, slotOf(placed), addrOf(placed), len);
                if (m != null) {
                    Extents e = out.fresh();
                    m.device().allocation(m.dataOffset() + addrOf(placed), len, e);
                    answers.add(e);
                }
            }
            out.addUnion(answers, len);
            pos += len;
        }
    }

    private void finish(Bio bio, IoStatus status) {
        if (barrierCovers(bio)) {
            barrier.exit(bio);
        }
        bio.endio(status);
    }

    private static Member readable(MemberSet.Table t, int slot, long addr, long len) {
        Member m = t.slots()[slot];
        if (m != null && m.readable(addr, len)) {
            return m;
        }
        Member r = t.replacements()[slot];
        return r != null && r.readable(addr, len) ? r : null;
    }

    /** One read and its retries: tries copies from {@code first} on until one succeeds. */
    private static final class Read implements BioCallback {
        private final Mirrored level;
        private final Bio parent;
        private final int first;
        private int tried;
        private Member member;

        Read(Mirrored level, Bio parent, int first) {
            this.level = level;
            this.parent = parent;
            this.first = first;
        }

        /**
         * Tries the copies from {@code first} on, each once. A write-mostly member is passed over
         * while a later copy may still serve the read, and tried when none is left (md's
         * read_balance keeps such a disk as its last resort). Each member is tried at most once: the
         * first pass sends only to members that are not write-mostly, the second only to those that are.
         */
        void next() {
            MemberSet.Table t = level.members.table();
            int n = level.copies();
            while (tried < 2 * n) {
                boolean lastResort = tried >= n;
                int copy = first + (tried++ % n);
                if (copy >= n) {
                    copy -= n;
                }
                long placed = level.place(parent.offset(), copy);
                long addr = addrOf(placed);
                Member m = readable(t, slotOf(placed), addr, parent.length());
                if (m != null && m.writeMostly() != lastResort) {
                    continue;
                }
                if (m != null) {
                    member = m;
                    m.device().submit(parent.derive(BioOp.READ, m.dataOffset() + addr, parent.length(), 0, parent.flags(), this));
                    return;
                }
            }
            level.finish(parent, IoStatus.IO_ERROR);
        }

        @Override
        public void done(Bio child) {
            if (child.status().ok()) {
                level.finish(parent, IoStatus.OK);
            } else {
                level.members.failed(member, "read error");
                next();
            }
        }
    }

    private void write(Bio bio) {
        metadata.startWrite(bio.offset(), bio.length(), new Write(this, bio));
    }

    /** One write fanned out to every copy; completes when the last member answers. */
    private static final class Write implements BioCallback, Runnable {
        private final Mirrored level;
        private final Bio parent;
        /** Members still to answer, plus one held by the sender until it has sent them all. */
        private volatile int remaining = 1;
        private volatile boolean written;
        /** False once a copy was not written: a slot had no writable member, or its write failed. */
        private volatile boolean everyCopy = true;
        private volatile boolean sawFailure;

        Write(Mirrored level, Bio parent) {
            this.level = level;
            this.parent = parent;
        }

        /** Fans out, once the metadata lets the write go. */
        @Override
        public void run() {
            MemberSet.Table t = level.members.table();
            // read after the table: a table without a failed member comes with its unrecorded failure
            if (level.metadata.failurePending()) {
                level.metadata.afterFailuresRecorded(this);
                return;
            }
            for (int copy = 0, n = level.copies(); copy < n; copy++) {
                long placed = level.place(parent.offset(), copy);
                int slot = slotOf(placed);
                if (!send(t.slots()[slot], addrOf(placed))) {
                    everyCopy = false;
                }
                send(t.replacements()[slot], addrOf(placed));
            }
            release();
        }

        private boolean send(Member m, long addr) {
            if (m == null || !m.writable()) {
                return false;
            }
            REMAINING.getAndAdd(this, 1);
            Bio child = parent.derive(parent.op(), m.dataOffset() + addr, parent.length(), 0, parent.flags(), this);
            child.context(m);
            m.device().submit(child);
            return true;
        }

        @Override
        public void done(Bio child) {
            if (child.status().ok()) {
                written = true;
            } else {
                everyCopy = false;
                sawFailure = true;
                level.members.failed((Member) child.context(), child.op().name().toLowerCase() + " error");
            }
            release();
        }

        void release() {
            if ((int) REMAINING.getAndAdd(this, -1) == 1) {
                level.metadata.endWrite(parent.offset(), parent.length(), everyCopy);
                IoStatus status = written ? IoStatus.OK : IoStatus.IO_ERROR;
                if (sawFailure) {
                    level.metadata.afterFailuresRecorded(() -> level.finish(parent, status));
                } else {
                    level.finish(parent, status);
                }
            }
        }
    }

    /* ---- Sync windows, on the daemon thread ---- */

    @Override
    public final long nextResync(long offset) {
        WriteIntentBitmap bitmap = metadata.bitmap();
        if (bitmap == null) {
            return offset;
        }
        long next = bitmap.nextNeeded(offset);
        return next < 0 ? sizeBytes() : next;
    }

    /** {@link #syncWindowAt}, cut where the bitmap's NEEDED chunks end, so a resync through it copies only them. */
    @Override
    public final long resyncWindowAt(long offset) {
        return Redundancy.neededRun(metadata.bitmap(), offset, syncWindowAt(offset));
    }

    @Override
    public final long rebuildWindow(Member target, long addr) {
        long len = recoveryWindowAt(addr);
        long offset = arrayOffsetOf(target.slot(), addr);
        return target.bitmapRecovery() && offset >= 0 ? Redundancy.neededRun(metadata.bitmap(), offset, len) : len;
    }

    @Override
    public final void windowSynced(long offset, long len) {
        WriteIntentBitmap bitmap = metadata.bitmap();
        if (bitmap != null && members.degraded() == 0) {
            bitmap.synced(offset, len);
        }
    }

    /**
     * Resync, check or repair the window at array offset {@code offset}: reads every in-sync copy,
     * compares each with the first, and (if {@code fix}) rewrites the ones that differ. Returns
     * the mismatched sectors found.
     */
    final long syncWindow(long offset, long len, boolean fix, MemorySegment[] buffers) {
        int n = copies();
        Member[] holders = new Member[n];
        long[] addrs = new long[n];
        SyncIo.Waiter[] waits = new SyncIo.Waiter[n];
        barrier.raise(offset);
        try {
            MemberSet.Table t = members.table();
            for (int c = 0; c < n; c++) {
                long placed = place(offset, c);
                Member m = t.slots()[slotOf(placed)];
                if (m != null && m.state() == MemberState.IN_SYNC) {
                    holders[c] = m;
                    addrs[c] = addrOf(placed);
                    waits[c] = start(m, BioOp.READ, addrs[c], buffers[c].asSlice(0, len));
                }
            }
            int reference = -1;
            for (int c = 0; c < n; c++) {
                if (waits[c] != null && !waits[c].await().ok()) {
                    members.failed(holders[c], "read error during sync");
                    holders[c] = null;
                }
                if (holders[c] != null && reference < 0) {
                    reference = c;
                }
            }
            long mismatched = 0;
            for (int c = reference + 1; reference >= 0 && c < n; c++) {
                if (holders[c] == null) {
                    continue;
                }
                long differing = differingUnits(buffers[reference], buffers[c], len);
                mismatched += differing * (COMPARE_UNIT / 512);
                waits[c] = differing > 0 && fix ? start(holders[c], BioOp.WRITE, addrs[c], buffers[reference].asSlice(0, len)) : null;
            }
            for (int c = reference + 1; reference >= 0 && c < n; c++) {
                if (waits[c] != null && holders[c] != null && !waits[c].await().ok()) {
                    members.failed(holders[c], "write error during sync");
                }
            }
            return mismatched;
        } finally {
            barrier.lower(offset);
        }
    }

    private static long differingUnits(MemorySegment a, MemorySegment b, long len) {
        long units = 0;
        for (long at = 0; at < len; at += COMPARE_UNIT) {
            long n = Math.min(COMPARE_UNIT, len - at);
            if (MemorySegment.mismatch(a, at, at + n, b, at, at + n) >= 0) {
                units++;
            }
        }
        return units;
    }

    /**
     * Rebuilds {@code [addr, addr+len)} of {@code target} from an in-sync copy of the same data,
     * then advances the target's rebuilt mark past it. A target re-added through the bitmap skips
     * windows whose chunks the bitmap does not mark.
     */
    final Recovered recoverWindow(Member target, long addr, long len, MemorySegment buffer) {
        long offset = arrayOffsetOf(target.slot(), addr);
        if (offset < 0) {
            target.rebuiltTo(addr + len);
            return Recovered.SKIPPED;
        }
        WriteIntentBitmap bitmap = metadata.bitmap();
        if (target.bitmapRecovery() && bitmap != null && !bitmap.needed(offset, len)) {
            target.rebuiltTo(addr + len);
            return Recovered.SKIPPED;
        }
        MemorySegment data = buffer.asSlice(0, len);
        barrier.raise(offset);
        try {
            if (!readAnyCopy(target, offset, data)) {
                return Recovered.NO_SOURCE;
            }
            if (!start(target, BioOp.WRITE, addr, data).await().ok()) {
                members.failed(target, "write error during recovery");
                return Recovered.TARGET_FAILED;
            }
            target.rebuiltTo(addr + len);
            if (bitmap != null && !members.degradedBesides(target)) {
                bitmap.synced(offset, len);
            }
            return Recovered.COPIED;
        } finally {
            barrier.lower(offset);
        }
    }

    private boolean readAnyCopy(Member target, long offset, MemorySegment into) {
        for (int c = 0, n = copies(); c < n; c++) {
            long placed = place(offset, c);
            MemberSet.Table t = members.table();
            for (Member m : new Member[] {t.slots()[slotOf(placed)], t.replacements()[slotOf(placed)]}) {
                if (m != null && m != target && m.state() == MemberState.IN_SYNC) {
                    if (start(m, BioOp.READ, addrOf(placed), into).await().ok()) {
                        return true;
                    }
                    members.failed(m, "read error during recovery");
                }
            }
        }
        return false;
    }

    private static SyncIo.Waiter start(Member m, BioOp op, long addr, MemorySegment data) {
        SyncIo.Waiter w = new SyncIo.Waiter();
        m.device().submit(Bio.of(op, m.dataOffset() + addr, data.byteSize(), BioFlags.NONE, data, w));
        return w;
    }
}
