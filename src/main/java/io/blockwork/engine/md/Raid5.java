package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.Plug;
import io.blockwork.engine.block.PlugTarget;
import io.blockwork.engine.md.metadata.WriteIntentBitmap;
import io.blockwork.engine.md.parity.ParityKernel;
import io.blockwork.engine.md.parity.ParitySelection;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * md's raid5 personality, which is also raid4 and raid6 (as in raid5.c): placement from
 * {@link ParityGeometry}, all writes and all reconstruction through a {@link StripeCache} of
 * {@link StripeHead}s, healthy reads straight to the member holding the data.
 *
 * <p>The I/O path. The core splits bios at rows (a chunk of every member), so a bio lies in one
 * row. A read goes, piece per data chunk, to the member holding it when that member can read it
 * (md's {@code raid5_read_one_chunk}); an error or a missing member sends the piece to its stripe
 * heads, which rebuild it from the others. A write is cut into one request per stripe head and
 * data member, every request attached before any head runs, so a bio covering whole stripes is
 * seen whole (a full-stripe write, no reads). Requests that arrive while a head is busy wait on it
 * and go out together in its next parity update (batching); with a {@link Plug} open, plain
 * writes wait in the plug and come back sorted and merged.
 *
 * <p>With metadata a run of writes first passes the array's {@link ArrayMetadata} (md's
 * md_write_start and the bitmap's startwrite, which raid5.c calls per stripe): it goes to the
 * heads once the superblocks say the array is active and the bitmap bits of the member range it
 * touches are durable, and completes only once any member failure it may have met is recorded. The
 * bitmap covers member bytes (md's resync_max_sectors for raid5 is the device size), so after an
 * unclean shutdown the resync recomputes parity only in rows whose chunks are marked, and a stripe
 * outside them is trusted even while degraded: the write hole closed through the bitmap, as md does.
 *
 * <p>Size note: over 400 lines because the write path (writes cut per head) and the sync daemon's
 * view (resync rows, rebuild windows, both through the bitmap's member-byte chunks) share the row
 * and member-range arithmetic. Reads are {@link ParityReads}, the metadata-gated run of writes
 * {@link MeteredRun}, the heads' state machine {@link StripeHead}, placement {@link ParityGeometry}.
 *
 * <p>See docs/engine/raid5.md for the formulas, the stripe cache and the write-hole modes.
 */
final class Raid5 implements Personality, Redundancy, PlugTarget {

    /** Unit of the stripe cache's validity and of rmw/rcw accounting (md's STRIPE_SIZE). */
    static final int BLOCK = 4096;
    /** Largest stripe head: the validity masks are longs. */
    static final int MAX_STRIPE = 64 * BLOCK;
    /**
     * Bytes of each member a head covers, at most (md's stripe_size, which goes up to the page
     * size: 64 KiB on 64 KiB-page machines). With chunks up to 64 KiB a row is one head, so a
     * full-stripe write is one parity pass and one member write per member; 16 KiB heads cut the
     * same row into four of each, and their bookkeeping was over a third of a full-stripe
     * write's CPU samples (raid5.md).
     */
    static final int STRIPE = 64 * 1024;
    /**
     * Heads of an array with a write journal: its records and its minimum size are per head, and
     * journals written before heads grew to {@link #STRIPE} must still replay.
     */
    static final int JOURNALED_STRIPE = 16 * 1024;

    final MemberSet members;
    final ParityGeometry geo;
    final StripeCache cache;
    /** The parity code to use now: the scalar code until the start-up benchmark has chosen. */
    ParityKernel kernel() {
        return geo.level() == MdLevel.RAID6 ? ParitySelection.raid6Kernel() : ParitySelection.xorKernel();
    }

    /** Bytes of each member one stripe head covers. */
    final int stripeBytes;
    final int blocksPerHead;
    /** Optional write journal on its own device (md's raid5-cache, write-through); null without one. */
    final StripeJournal journal;
    /** Bytes of one row: a chunk of every member. */
    final long rowBytes;
    private final ParityReads reads = new ParityReads(this);
    private volatile long syncedTo;
    /** Set once by the array before any I/O. */
    private ArrayMetadata metadata = ArrayMetadata.NONE;
    /** Who computes full-stripe parity; a head reads it once per write batch. */
    private volatile ParityThreads parityThreads = ParityThreads.WORKERS;

    /** Counters for status, tests and benchmarks. */
    final LongAdder rmwStripes = new LongAdder();
    final LongAdder rcwStripes = new LongAdder();
    final LongAdder fullStripes = new LongAdder();
    final LongAdder batchedWrites = new LongAdder();
    final LongAdder reconstructions = new LongAdder();

    /**
     * @param journal a device for the write journal, or null; when given, every stripe write is
     *        logged to it before the members are written
     */
    Raid5(MemberSet members, ParityGeometry geo, boolean clean, int stripeCacheSize, BlockDevice journal) {
        this.members = members;
        this.geo = geo;
        ParitySelection.start();
        this.stripeBytes = (int) Math.min(journal == null ? STRIPE : JOURNALED_STRIPE, geo.chunkBytes());
        this.blocksPerHead = stripeBytes / BLOCK;
        this.rowBytes = geo.rowBytes();
        this.cache = new StripeCache(this, stripeCacheSize);
        this.journal = journal == null ? null : StripeJournal.on(journal, geo.disks(), stripeBytes, this::slotDevices);
        this.syncedTo = clean ? Long.MAX_VALUE : 0;
    }

    @Override
    public MdLevel level() {
        return geo.level();
    }

    @Override
    public long sizeBytes() {
        return geo.arrayBytes();
    }

    @Override
    public long usedMemberBytes() {
        return geo.memberBytes();
    }

    /** Bios stay within a row, so each is a set of stripe heads of one row. */
    @Override
    public long boundaryBytes() {
        return rowBytes;
    }

    /** A full row fits one bio, so full-stripe writes are possible whatever the chunk. */
    long maxIoBytes() {
        return rowBytes;
    }

    /* ---- The I/O path ---- */

    @Override
    public void submit(Bio bio) {
        Plug plug = Plug.current();
        if (plug != null && bio.op() == BioOp.WRITE && Plug.mayHold(bio)) {
            plug.hold(this, bio);
            return;
        }
        dispatchRun(List.of(bio));
    }

    /** A run of bios (one, or adjacent plain writes from a plug): attach all, then run the heads. */
    @Override
    public void dispatchRun(List<Bio> run) {
        if (members.lostReason() != null) {
            run.forEach(b -> b.endio(IoStatus.IO_ERROR));
            return;
        }
        if (metadata != ArrayMetadata.NONE && run.stream().anyMatch(b -> b.op() != BioOp.READ)) {
            List<Bio> writes = new ArrayList<>(run.size());
            for (Bio bio : run) {
                if (bio.op() == BioOp.READ) {
                    read(bio);
                } else {
                    writes.add(bio);
                }
            }
            MeteredRun m = new MeteredRun(this, writes);
            metadata.startWrite(m.syncStart, m.syncEnd - m.syncStart, m);
            return;
        }
        attachAndRun(run);
    }

    /** Attaches every bio of {@code run} to its heads, then runs the heads. */
    void attachAndRun(List<Bio> run) {
        Set<StripeHead> touched = new LinkedHashSet<>();
        for (Bio bio : run) {
            if (bio.op() == BioOp.READ) {
                read(bio);
            } else {
                write(bio, touched);
            }
        }
        for (StripeHead h : touched) {
            h.schedule();
        }
    }

    /** The member bytes {@code [from, to)} of array bytes {@code [offset, offset+len)} within one row, written with their parity. */
    long[] memberRange(long offset, long len) {
        long row = offset / rowBytes;
        long chunk = geo.chunkBytes();
        long inRow = offset - row * rowBytes;
        if (inRow / chunk == (inRow + len - 1) / chunk) {
            long from = row * chunk + inRow % chunk;
            return new long[] {from, from + len};
        }
        return new long[] {row * chunk, (row + 1) * chunk};
    }

    private void read(Bio bio) {
        reads.read(bio);
    }

    /** As a read would: see {@link ParityReads#allocation}. */
    @Override
    public void allocation(long offset, long length, Extents out) {
        reads.allocation(offset, length, out);
    }

    private void write(Bio bio, Set<StripeHead> touched) {
        long row = bio.offset() / rowBytes;
        long inRow = bio.offset() - row * rowBytes;
        long chunk = geo.chunkBytes();
        long done = 0;
        while (done < bio.length()) {
            long at = inRow + done;
            int k = (int) (at / chunk);
            long inChunk = at - k * chunk;
            long a = row * chunk + inChunk;
            long key = a / stripeBytes;
            int off = (int) (a - key * stripeBytes);
            int n = (int) Math.min(Math.min(bio.length() - done, chunk - inChunk), stripeBytes - off);
            bio.retain();
            StripeHead h = cache.attach(key, new StripeHead.Req(bio, bio.op(), geo.dataDisk(row, k), off, n, done));
            if (h != null) {
                touched.add(h);
            }
            done += n;
        }
        bio.endio();
    }

    /** The device in each slot (null for an empty one), for the journal's checkpoints. */
    private List<BlockDevice> slotDevices() {
        List<BlockDevice> out = new ArrayList<>();
        for (Member m : members.table().slots()) {
            out.add(m == null ? null : m.device());
        }
        return out;
    }

    /** A member that can read {@code [addr, addr+len)} of slot {@code disk}: the slot's, else its replacement. */
    static Member reader(MemberSet.Table t, int disk, long addr, long len) {
        Member m = t.slots()[disk];
        if (m != null && m.readable(addr, len)) {
            return m;
        }
        Member r = t.replacements()[disk];
        return r != null && r.readable(addr, len) ? r : null;
    }

    /* ---- Survival and status ---- */

    @Override
    public boolean survives(MemberSet.Table table) {
        int missing = 0;
        for (Member m : table.slots()) {
            if (m == null || m.state() != MemberState.IN_SYNC) {
                missing++;
            }
        }
        return missing <= geo.maxDegraded();
    }

    /** As raid5_status prints it: {@code " level 5, 512k chunk, algorithm 2"}. */
    @Override
    public String mdstatGeometry() {
        return " level " + geo.level().number() + ", " + geo.chunkBytes() / 1024 + "k chunk, algorithm " + geo.layout().code();
    }

    ParityThreads parityThreads() {
        return parityThreads;
    }

    void parityThreads(ParityThreads threads) {
        parityThreads = java.util.Objects.requireNonNull(threads, "threads");
    }

    /** The stripe cache's size, in stripe heads (md's stripe_cache_size). */
    int stripeCacheSize() {
        return cache.capacity();
    }

    void stripeCacheSize(int heads) {
        cache.capacity(heads);
    }

    /* ---- Redundancy: the daemon's view ---- */

    @Override
    public long syncedTo() {
        return syncedTo;
    }

    @Override
    public void syncedTo(long offset) {
        if (canResync() || offset == 0) {
            syncedTo = offset;
        }
    }

    @Override
    public void metadata(ArrayMetadata m) {
        this.metadata = m;
    }

    @Override
    public ArrayMetadata metadata() {
        return metadata;
    }

    /** The bitmap covers member bytes: md's resync_max_sectors for raid5 is the device size. */
    @Override
    public long syncBytes() {
        return geo.memberBytes();
    }

    @Override
    public int layoutCode() {
        return geo.layout().code();
    }

    /** A row's array offset to the member offset where it starts. */
    @Override
    public long syncOffsetOf(long offset) {
        return offset == Long.MAX_VALUE ? offset : offset / rowBytes * geo.chunkBytes();
    }

    @Override
    public long arrayOffsetOfSync(long syncOffset) {
        return syncOffset / geo.chunkBytes() * rowBytes;
    }

    /**
     * True if the parity of {@code row} may never have been computed: above the resync point and,
     * with a bitmap, in a chunk it marks (a stripe outside every marked chunk was consistent at the
     * crash, so a degraded array may rebuild from it).
     */
    boolean unsyncedRow(long row) {
        if (row * rowBytes < syncedTo) {
            return false;
        }
        WriteIntentBitmap bitmap = metadata.bitmap();
        return bitmap == null || bitmap.needed(row * geo.chunkBytes(), geo.chunkBytes());
    }

    @Override
    public long nextResync(long offset) {
        WriteIntentBitmap bitmap = metadata.bitmap();
        if (bitmap == null) {
            return offset;
        }
        long next = bitmap.nextNeeded(syncOffsetOf(offset));
        return next < 0 ? sizeBytes() : Math.max(offset, arrayOffsetOfSync(next));
    }

    /** One row: the resync recomputes whole rows, the ones {@link #nextResync} leads it to. */
    @Override
    public long resyncWindowAt(long offset) {
        return scrubWindowAt(offset);
    }

    /**
     * The row's member range is consistent; its bitmap chunks clear once a resync has walked them to
     * their end (rows of a chunk are visited in order from its start, which is row-aligned).
     */
    @Override
    public void windowSynced(long offset, long len) {
        WriteIntentBitmap bitmap = metadata.bitmap();
        if (bitmap != null && members.degraded() == 0) {
            long rowStart = syncOffsetOf(offset);
            long chunkStart = rowStart / bitmap.chunkBytes() * bitmap.chunkBytes();
            bitmap.synced(chunkStart, rowStart + geo.chunkBytes() - chunkStart);
        }
    }

    /** A degraded array cannot recompute its parity: its resync waits for a recovery. */
    @Override
    public boolean canResync() {
        return members.degraded() == 0;
    }

    /** One row: every stripe head of it. */
    @Override
    public long scrubWindowAt(long offset) {
        return Math.min(rowBytes - offset % rowBytes, sizeBytes() - offset);
    }

    @Override
    public long scrub(long offset, long len, boolean fix, MemorySegment[] buffers) {
        if (!canResync()) {
            return 0;
        }
        long row = offset / rowBytes;
        return syncRow(row, null, fix);
    }

    @Override
    public int scrubBuffers() {
        return 0;
    }

    @Override
    public long rebuildBytes() {
        return geo.memberBytes();
    }

    @Override
    public long rebuildWindowAt(long addr) {
        return Math.min(Math.min(Mirrored.WINDOW, geo.chunkBytes() - addr % geo.chunkBytes()), geo.memberBytes() - addr);
    }

    @Override
    public long rebuildWindow(Member target, long addr) {
        long len = rebuildWindowAt(addr);
        return target.bitmapRecovery() ? Redundancy.neededRun(metadata.bitmap(), addr, len) : len;
    }

    @Override
    public Recovered rebuild(Member target, long addr, long len, MemorySegment buffer) {
        WriteIntentBitmap bitmap = metadata.bitmap();
        if (target.bitmapRecovery() && bitmap != null && !bitmap.needed(addr, len)) {
            target.rebuiltTo(addr + len);
            return Recovered.SKIPPED;
        }
        List<StripeHead.SyncOp> ops = new ArrayList<>();
        for (long a = addr; a < addr + len; a += stripeBytes) {
            ops.add(cache.sync(a / stripeBytes, target, false));
        }
        Recovered worst = Recovered.COPIED;
        for (StripeHead.SyncOp op : ops) {
            Recovered r = op.awaitRecovered();
            if (r != Recovered.COPIED && worst == Recovered.COPIED) {
                worst = r;
            }
        }
        if (worst == Recovered.COPIED) {
            target.rebuiltTo(addr + len);
            if (bitmap != null && !members.degradedBesides(target)) {
                bitmap.synced(addr, len);
            }
        }
        return worst;
    }

    /** Checks (and with {@code fix} rewrites) the parity of every head of {@code row}; returns mismatched sectors. */
    private long syncRow(long row, Member target, boolean fix) {
        long first = row * geo.chunkBytes() / stripeBytes;
        long heads = geo.chunkBytes() / stripeBytes;
        List<StripeHead.SyncOp> ops = new ArrayList<>();
        for (long k = first; k < first + heads; k++) {
            ops.add(cache.sync(k, target, fix));
        }
        long mismatched = 0;
        for (StripeHead.SyncOp op : ops) {
            mismatched += op.awaitMismatches();
        }
        return mismatched;
    }
}
