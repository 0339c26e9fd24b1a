package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.Plug;
import io.blockwork.engine.block.PlugTarget;
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
 * <p>See docs/engine/raid5.md for the formulas, the stripe cache and the write-hole modes.
 */
final class Raid5 implements Personality, Redundancy, PlugTarget {

    /** Unit of the stripe cache's validity and of rmw/rcw accounting (md's STRIPE_SIZE). */
    static final int BLOCK = 4096;
    /** Largest stripe head: the validity masks are longs. */
    static final int MAX_STRIPE = 64 * BLOCK;
    static final int DEFAULT_STRIPE = 16 * 1024;

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
    private final long rowBytes;
    private volatile long syncedTo;

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
        this.stripeBytes = (int) Math.min(DEFAULT_STRIPE, geo.chunkBytes());
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

    private void read(Bio bio) {
        long row = bio.offset() / rowBytes;
        long inRow = bio.offset() - row * rowBytes;
        long chunk = geo.chunkBytes();
        MemberSet.Table t = members.table();
        long done = 0;
        while (done < bio.length()) {
            long at = inRow + done;
            int k = (int) (at / chunk);
            long inChunk = at - k * chunk;
            long len = Math.min(bio.length() - done, chunk - inChunk);
            int disk = geo.dataDisk(row, k);
            long addr = row * chunk + inChunk;
            Member m = reader(t, disk, addr, len);
            bio.retain();
            if (m != null) {
                m.device().submit(bio.derive(BioOp.READ, addr, len, done, bio.flags(), new DirectRead(this, bio, m, disk, addr, done)));
            } else {
                viaHeads(bio, disk, addr, len, done);
            }
            done += len;
        }
        bio.endio();
    }

    /** A healthy read of one chunk piece; on error the member fails and the piece is rebuilt from the others. */
    private record DirectRead(Raid5 level, Bio parent, Member member, int disk, long addr, long dataOff) implements BioCallback {
        @Override
        public void done(Bio child) {
            if (child.status().ok()) {
                parent.endio();
                return;
            }
            level.members.failed(member, "read error");
            if (level.members.lostReason() != null) {
                parent.endio(IoStatus.IO_ERROR);
                return;
            }
            level.viaHeads(parent, disk, addr, child.length(), dataOff);
        }
    }

    /** Sends a read piece (holding one reference on {@code bio}) through the stripe heads it covers. */
    private void viaHeads(Bio bio, int disk, long addr, long len, long dataOff) {
        List<StripeHead> touched = new ArrayList<>(2);
        long done = 0;
        while (done < len) {
            long a = addr + done;
            long key = a / stripeBytes;
            int off = (int) (a - key * stripeBytes);
            int n = (int) Math.min(len - done, stripeBytes - off);
            bio.retain();
            StripeHead h = cache.attach(key, new StripeHead.Req(bio, BioOp.READ, disk, off, n, dataOff + done));
            if (h != null && !touched.contains(h)) {
                touched.add(h);
            }
            done += n;
        }
        bio.endio();
        touched.forEach(StripeHead::schedule);
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
    public Recovered rebuild(Member target, long addr, long len, MemorySegment buffer) {
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
