package io.blockwork.engine.md;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * A write journal on a separate device, closing raid4/5/6's write hole (md's raid5-cache in
 * write-through mode, {@code mdadm --write-journal}): before a stripe head writes its members, it
 * writes everything it is about to write (new data and new parity) to the journal with FUA, and
 * only then to the members. After an unclean stop, {@link #replay} writes every record again, in
 * order, so each stripe holds either all of a write (data and parity) or none of it; no resync is
 * needed, and a member missing at that start is rebuilt from parity that matches its data.
 *
 * <p>Layout, in 4 KiB blocks, little-endian: block 0 is the superblock ({@code magic}, version,
 * the sequence number and block of the first live record, CRC32C). Records follow from block 1,
 * wrapping to block 1 when one does not fit before the end: a header block (magic, sequence,
 * stripe head, entries of member slot / offset / length, CRC32C over header and payload) and the
 * payload blocks. The live records run from the superblock's checkpoint to the write position.
 *
 * <p>Records land in order: a record's member writes start only once it and every record before
 * it are durable ({@link #written} hands records on in sequence order, as md's r5l runs the
 * stripes of an io_unit only once the io_units before it are done). The replay stops at the first
 * record that is not whole, so a later record that landed out of order is never replayed; had its
 * member writes started, a crash mid-way would leave its stripe half-written with no record to
 * finish it. A record after one whose write failed is refused even if it landed.
 *
 * <p>Sequence numbers never repeat on one device: a new journal starts at a random sequence and
 * the one after a replay {@link #replay skips} past any record the old run may have left beyond
 * the replay's end, so a stale record can never be read as the next one (md's r5l does both).
 *
 * <p>Space comes back by a checkpoint: once every record written so far has reached its members
 * (each head {@link #retire}s its records once its member writes have all succeeded), the members
 * are flushed and, only if every flush succeeded, the superblock is rewritten to start after them.
 * Appends that find no room wait for it, parked, never blocking the submitter.
 *
 * <p>A record whose member writes did not all succeed (the head ended its write with an error,
 * e.g. a second member failed mid-stripe and the array is lost) has not reached its members: its
 * stripe may hold new parity beside old data. Such a head {@link #pin}s the journal instead of
 * retiring: no checkpoint moves the tail past that record in this run, so the next assembly's
 * replay finishes the stripe. Appends that still fit are written; those that do not are refused
 * (their heads fail the write without touching a member) rather than waiting for space that will
 * not come back.
 *
 * <p>Locking: {@code this} guards the positions, the counters and the waiting appends; device I/O
 * is submitted after it is released.
 *
 * <p>Size note: over 400 lines because appending, checkpointing and replaying share one record
 * format and one set of positions under one lock; split apart, the ordering rules that close the
 * write hole (record before member writes, tail moved only past records whose member writes
 * succeeded and were flushed) would be spread over several files. docs/engine/raid5.md lists them.
 */
final class StripeJournal {

    static final int BLOCK = 4096;
    private static final int SUPER_MAGIC = 0x4a574b42;
    private static final int RECORD_MAGIC = 0x524a5742;
    private static final int ENTRY_BYTES = 12;
    private static final int HEADER_FIXED = 4 + 8 + 8 + 4;
    /** Most entries a header block holds (beside its CRC). */
    static final int MAX_ENTRIES = (BLOCK - HEADER_FIXED - 4) / ENTRY_BYTES;

    /** One run of blocks a stripe head will write: slot, offset in the head, bytes. */
    record Entry(int disk, int off, int len, MemorySegment data) {}

    private record Waiting(long headKey, List<Entry> entries, Runnable then, Runnable refused) {}

    /** A record whose write ended, waiting to be handed on in sequence order. */
    private record Landed(boolean ok, Runnable then, Runnable refused) {}

    private final BlockDevice device;
    private final long blocks;
    private final int stripeBytes;
    /** The array's member devices by slot (null for a missing one), for checkpoints. */
    private final Supplier<List<BlockDevice>> members;

    // Guarded by this.
    private long nextBlock = 1;
    /** Set by {@link #start} before the array serves I/O. */
    private long nextSeq = 1;
    private long usedBlocks;
    /** Records placed and not yet retired (only counted while the journal has not failed). */
    private int unretired;
    private boolean checkpointing;
    private boolean failed;
    /** A record's member writes failed: no checkpoint until the next assembly replays it. */
    private boolean pinned;
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    /** Every record up to this sequence has landed (or failed) and been handed on. */
    private long handedOnUpTo;
    /** Records that landed (or failed) before one placed earlier: what each hands on, by sequence. */
    private final TreeMap<Long, Landed> landedEarly = new TreeMap<>();
    /** The first record whose write failed: it and every record after it are refused. */
    private long failedAt = Long.MAX_VALUE;
    private long records;
    private long checkpoints;

    private StripeJournal(BlockDevice device, int stripeBytes, Supplier<List<BlockDevice>> members) {
        this.device = device;
        this.blocks = device.sizeBytes() / BLOCK;
        this.stripeBytes = stripeBytes;
        this.members = members;
    }

    /** A journal for heads of {@code stripeBytes}; the device needs room for a few full heads. */
    static StripeJournal on(BlockDevice device, int disks, int stripeBytes, Supplier<List<BlockDevice>> members) {
        long need = 1 + 4L * (1 + (long) disks * stripeBytes / BLOCK);
        if (device.sizeBytes() / BLOCK < need) {
            throw new MdArgumentException("journal", device.name() + " has " + device.sizeBytes() + " bytes; a journal for "
                    + disks + " members needs at least " + need * BLOCK);
        }
        return new StripeJournal(device, stripeBytes, members);
    }

    BlockDevice device() {
        return device;
    }

    /** Records written and checkpoints taken since the array started, and whether the journal failed or is pinned. */
    synchronized JournalStatus status() {
        return new JournalStatus(device.name(), device.sizeBytes(), usedBlocks * BLOCK, records, checkpoints, failed, pinned);
    }

    /* ---- Writing ---- */

    /**
     * Writes the record of head {@code headKey} with FUA; {@code then} runs once it is durable.
     * {@code refused} runs instead (the head must fail the write without touching its members) if
     * the journal has failed, or fails this record's write, or is {@link #pin}ned and the record
     * does not fit. A failed journal refuses every write, as md starts an array whose journal is
     * missing or faulty read-only: a write that reached the members unlogged would be undone at
     * the next assembly by the replay of an older record of its stripe.
     */
    void append(long headKey, List<Entry> entries, Runnable then, Runnable refused) {
        List<Runnable> go = new ArrayList<>();
        synchronized (this) {
            if (failed) {
                go.add(refused);
            } else if (pinned && waiting.isEmpty()) {
                go.add(fits(sizeOf(entries)) ? place(headKey, entries, then, refused) : refused);
            } else if (!waiting.isEmpty() || checkpointing || !fits(sizeOf(entries))) {
                waiting.add(new Waiting(headKey, entries, then, refused));
                maybeCheckpoint(go);
            } else {
                go.add(place(headKey, entries, then, refused));
            }
        }
        go.forEach(Runnable::run);
    }

    /** A head's member writes of its last {@code records} records have all succeeded. */
    void retire(int records) {
        List<Runnable> go = new ArrayList<>();
        synchronized (this) {
            unretired -= records;
            maybeCheckpoint(go);
        }
        go.forEach(Runnable::run);
    }

    /**
     * A head's write failed after its record was placed: the record has not reached every member
     * it names, so it stays live for the next assembly's replay (it is never retired), and with it
     * every record after it. Waiting appends that fit are written, the others refused.
     */
    void pin() {
        List<Runnable> go = new ArrayList<>();
        synchronized (this) {
            if (!pinned && !failed) {
                System.getLogger(StripeJournal.class.getName()).log(System.Logger.Level.ERROR, "a stripe write failed on the members"
                        + " after its record in journal " + device.name() + "; the journal keeps it for the next assembly"
                        + " and takes no checkpoint until then");
            }
            pinned = true;
            if (!checkpointing) {
                drainWaiting(go);
            }
        }
        go.forEach(Runnable::run);
    }

    private static long sizeOf(List<Entry> entries) {
        long payload = 0;
        for (Entry e : entries) {
            payload += e.len();
        }
        return 1 + payload / BLOCK;
    }

    /** Caller holds the lock: room for a record of {@code n} blocks at the write position (or after a wrap). */
    private boolean fits(long n) {
        long region = blocks - 1;
        long skip = nextBlock + n > blocks ? blocks - nextBlock : 0;
        return usedBlocks + skip + n <= region;
    }

    /** Caller holds the lock: takes the space and returns the write of the record. */
    private Runnable place(long headKey, List<Entry> entries, Runnable then, Runnable refused) {
        if (entries.size() > MAX_ENTRIES) {
            throw new IllegalStateException("a stripe write of " + entries.size() + " runs does not fit a journal header");
        }
        long n = sizeOf(entries);
        if (nextBlock + n > blocks) {
            usedBlocks += blocks - nextBlock;
            nextBlock = 1;
        }
        long at = nextBlock;
        long seq = nextSeq++;
        nextBlock += n;
        usedBlocks += n;
        unretired++;
        records++;
        MemorySegment buf = encode(seq, headKey, entries, n);
        return () -> device.submit(Bio.of(BioOp.WRITE, at * BLOCK, buf.byteSize(), BioFlags.FUA, buf,
                b -> written(seq, b.status(), then, refused)));
    }

    /**
     * Record {@code seq}'s write ended: hands on, in sequence order, every record that has landed
     * with all before it ({@code then}), or that failed or follows one that failed ({@code refused}).
     */
    private void written(long seq, IoStatus status, Runnable then, Runnable refused) {
        List<Runnable> go = new ArrayList<>();
        boolean newlyFailed = false;
        synchronized (this) {
            if (!status.ok()) {
                newlyFailed = !failed;
                failed = true;
                failedAt = Math.min(failedAt, seq);
                // Appends waiting for space would wait for a checkpoint that no longer comes.
                drainWaiting(go);
            }
            landedEarly.put(seq, new Landed(status.ok(), then, refused));
            while (!landedEarly.isEmpty() && landedEarly.firstKey() == handedOnUpTo + 1) {
                long next = ++handedOnUpTo;
                Landed l = landedEarly.pollFirstEntry().getValue();
                // A record after a failed one is refused though it landed: the replay stops at the
                // failed one, so its member writes must not start.
                go.add(l.ok() && next < failedAt ? l.then() : l.refused());
            }
        }
        if (newlyFailed) {
            System.getLogger(StripeJournal.class.getName()).log(System.Logger.Level.ERROR,
                    "journal " + device.name() + " failed a write; the array refuses writes until it is assembled again");
        }
        go.forEach(Runnable::run);
    }

    private static MemorySegment encode(long seq, long headKey, List<Entry> entries, long n) {
        MemorySegment buf = MemorySegment.ofArray(new byte[(int) (n * BLOCK)]);
        buf.set(JAVA_INT_UNALIGNED, 0, RECORD_MAGIC);
        buf.set(JAVA_LONG_UNALIGNED, 4, seq);
        buf.set(JAVA_LONG_UNALIGNED, 12, headKey);
        buf.set(JAVA_INT_UNALIGNED, 20, entries.size());
        long payload = BLOCK;
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            long at = HEADER_FIXED + (long) i * ENTRY_BYTES;
            buf.set(JAVA_INT_UNALIGNED, at, e.disk());
            buf.set(JAVA_INT_UNALIGNED, at + 4, e.off());
            buf.set(JAVA_INT_UNALIGNED, at + 8, e.len());
            MemorySegment.copy(e.data(), 0, buf, payload, e.len());
            payload += e.len();
        }
        buf.set(JAVA_INT_UNALIGNED, BLOCK - 4, crc(buf, entries.size()));
        return buf;
    }

    private static int crc(MemorySegment record, int entries) {
        CRC32C c = new CRC32C();
        c.update(record.asSlice(0, HEADER_FIXED + (long) entries * ENTRY_BYTES).asByteBuffer());
        c.update(record.asSlice(BLOCK).asByteBuffer());
        return (int) c.getValue();
    }

    /* ---- Checkpoints ---- */

    /** Caller holds the lock: starts a checkpoint if appends wait and every record has reached its members. */
    private void maybeCheckpoint(List<Runnable> go) {
        if (checkpointing || pinned || failed || waiting.isEmpty() || unretired > 0) {
            return;
        }
        checkpointing = true;
        long block = nextBlock;
        long seq = nextSeq;
        go.add(() -> Thread.ofVirtual().name("md-journal-checkpoint").start(() -> checkpoint(block, seq)));
    }

    /**
     * Flushes the members (everything the live records hold is durable there), then moves the
     * tail; a member flush that fails leaves the tail where it is (the records may be all that
     * holds those writes) and fails the journal.
     */
    private void checkpoint(long block, long seq) {
        boolean ok = true;
        for (BlockDevice m : members.get()) {
            if (m != null) {
                ok &= SyncIo.execute(m, BioOp.FLUSH, 0, 0, BioFlags.NONE, null).ok();
            }
        }
        ok = ok && writeSuper(block, seq);
        List<Runnable> go = new ArrayList<>();
        synchronized (this) {
            checkpointing = false;
            checkpoints++;
            if (ok) {
                usedBlocks = 0;
            } else {
                failed = true;
            }
            drainWaiting(go);
            maybeCheckpoint(go);
        }
        go.forEach(Runnable::run);
    }

    /**
     * Caller holds the lock: hands on the waiting appends, in order, that can go now: all of them
     * refused once the journal has failed; those that fit; once pinned, the rest refused.
     */
    private void drainWaiting(List<Runnable> go) {
        while (!waiting.isEmpty()) {
            Waiting w = waiting.peekFirst();
            if (failed) {
                go.add(w.refused());
            } else if (fits(sizeOf(w.entries()))) {
                go.add(place(w.headKey(), w.entries(), w.then(), w.refused()));
            } else if (pinned) {
                go.add(w.refused());
            } else {
                break;
            }
            waiting.pollFirst();
        }
    }

    private boolean writeSuper(long block, long seq) {
        MemorySegment s = MemorySegment.ofArray(new byte[BLOCK]);
        s.set(JAVA_INT_UNALIGNED, 0, SUPER_MAGIC);
        s.set(JAVA_INT_UNALIGNED, 4, 1);
        s.set(JAVA_LONG_UNALIGNED, 8, seq);
        s.set(JAVA_LONG_UNALIGNED, 16, block);
        s.set(JAVA_INT_UNALIGNED, 24, stripeBytes);
        CRC32C c = new CRC32C();
        c.update(s.asSlice(0, 28).asByteBuffer());
        s.set(JAVA_INT_UNALIGNED, 28, (int) c.getValue());
        return SyncIo.execute(device, BioOp.WRITE, 0, BLOCK, BioFlags.FUA, s).ok();
    }

    /* ---- Start-up ---- */

    /**
     * Before the array serves I/O: writes every live record to the members (slots given in
     * {@code slots}, null for a missing member, whose part is skipped: the parity written beside it
     * stands for it), flushes them and starts a fresh journal. Returns the records replayed.
     *
     * <p>The fresh journal's first sequence is past any record the old run can have left beyond
     * the replay's end (fewer than {@code blocks / 2} were placed since its last checkpoint, a
     * record being at least two blocks), so none of them is ever read as one of the new run's.
     */
    int replay(List<? extends BlockDevice> slots) {
        MemorySegment s = MemorySegment.ofArray(new byte[BLOCK]);
        SyncIo.read(device, 0, s);
        CRC32C c = new CRC32C();
        c.update(s.asSlice(0, 28).asByteBuffer());
        boolean formatted = s.get(JAVA_INT_UNALIGNED, 0) == SUPER_MAGIC && s.get(JAVA_INT_UNALIGNED, 28) == (int) c.getValue()
                && s.get(JAVA_INT_UNALIGNED, 24) == stripeBytes;
        int replayed = 0;
        long block = 1;
        long seq = 1;
        if (formatted) {
            seq = s.get(JAVA_LONG_UNALIGNED, 8);
            block = s.get(JAVA_LONG_UNALIGNED, 16);
            boolean wrapped = false;
            while (true) {
                MemorySegment rec = readRecord(block, seq);
                if (rec == null && !wrapped && block != 1) {
                    wrapped = true;
                    block = 1;
                    continue;
                }
                if (rec == null) {
                    break;
                }
                apply(rec, slots);
                replayed++;
                block += rec.byteSize() / BLOCK;
                seq++;
                wrapped = false;
            }
            for (BlockDevice m : slots) {
                if (m != null) {
                    SyncIo.flush(m);
                }
            }
        }
        start(formatted ? seq + blocks : freshSequence());
        return replayed;
    }

    /**
     * A new array's journal: whatever the device held is not replayed, and starts from a random
     * sequence so that a record an earlier array left on the device is never read as one of ours.
     */
    void format() {
        start(freshSequence());
    }

    private static long freshSequence() {
        return ThreadLocalRandom.current().nextLong(1, 1L << 48);
    }

    private void start(long seq) {
        if (!writeSuper(1, seq)) {
            throw new MdStateException("journal", "cannot write the superblock of journal " + device.name());
        }
        synchronized (this) {
            nextBlock = 1;
            nextSeq = seq;
            handedOnUpTo = seq - 1;
            usedBlocks = 0;
        }
    }

    /** The record at {@code block} if it is whole and has sequence {@code seq}; else null (the end). */
    private MemorySegment readRecord(long block, long seq) {
        if (block < 1 || block >= blocks) {
            return null;
        }
        MemorySegment h = MemorySegment.ofArray(new byte[BLOCK]);
        SyncIo.read(device, block * BLOCK, h);
        if (h.get(JAVA_INT_UNALIGNED, 0) != RECORD_MAGIC || h.get(JAVA_LONG_UNALIGNED, 4) != seq) {
            return null;
        }
        int count = h.get(JAVA_INT_UNALIGNED, 20);
        if (count < 0 || count > MAX_ENTRIES) {
            return null;
        }
        long payload = 0;
        for (int i = 0; i < count; i++) {
            long len = h.get(JAVA_INT_UNALIGNED, HEADER_FIXED + (long) i * ENTRY_BYTES + 8);
            if (len <= 0 || len % BLOCK != 0 || len > stripeBytes) {
                return null;
            }
            payload += len;
        }
        if (block + 1 + payload / BLOCK > blocks) {
            return null;
        }
        MemorySegment rec = MemorySegment.ofArray(new byte[(int) (BLOCK + payload)]);
        SyncIo.read(device, block * BLOCK, rec);
        return rec.get(JAVA_INT_UNALIGNED, BLOCK - 4) == crc(rec, count) ? rec : null;
    }

    private void apply(MemorySegment rec, List<? extends BlockDevice> slots) {
        long headKey = rec.get(JAVA_LONG_UNALIGNED, 12);
        int count = rec.get(JAVA_INT_UNALIGNED, 20);
        long payload = BLOCK;
        for (int i = 0; i < count; i++) {
            long at = HEADER_FIXED + (long) i * ENTRY_BYTES;
            int disk = rec.get(JAVA_INT_UNALIGNED, at);
            int off = rec.get(JAVA_INT_UNALIGNED, at + 4);
            int len = rec.get(JAVA_INT_UNALIGNED, at + 8);
            BlockDevice m = disk >= 0 && disk < slots.size() ? slots.get(disk) : null;
            if (m != null) {
                SyncIo.write(m, headKey * stripeBytes + off, rec.asSlice(payload, len));
            }
            payload += len;
        }
    }
}
