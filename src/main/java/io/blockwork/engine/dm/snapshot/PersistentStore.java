package io.blockwork.engine.dm.snapshot;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.BlockIoException;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The persistent store ({@code P}/{@code PO}, the kernel's {@code dm-snap-persistent.c}), in its
 * documented on-disk layout, little-endian:
 * <pre>
 * chunk 0            header: u32 magic 0x70416e53 ("SnAp"), u32 valid, u32 version = 1,
 *                    u32 chunk_size (sectors); the rest of the chunk is zero
 * chunk 1 + k(E+1)   metadata area k: E = chunk_bytes / 16 entries {u64 old_chunk, u64 new_chunk},
 *                    followed by the E data chunks it describes
 * </pre>
 * An entry whose {@code new_chunk} is 0 ends the list (chunk 0 is the header, never data). An
 * area is zeroed on disk before its first entry can be written: when area k fills up, area k+1
 * is zeroed, then area k is written, so recovery never reads a stale area as live.
 *
 * <p>Commits. A commit fills in the next entry of the current area in memory; the area is
 * written (with PREFLUSH, so the copied data chunks are durable first, and FUA) when no other
 * prepared exception is still on its way or the area is full (the kernel's rule), and the
 * commit's callback runs once that write completed. One area write is in flight at a time; commits
 * arriving meanwhile join the next write of their area, so under load many exceptions share one
 * metadata write. Writes leave in commit order, and commits arrive in preparation order.
 *
 * <p>In memory the store keeps every live entry in commit order ({@link #log}): area k's entries
 * are {@code log[kE, (k+1)E)}, so an area is re-encoded from it for each write, and merging walks
 * back through it without reading the disk.
 *
 * <p>Size note: over 400 lines because the on-disk layout, its reader and its one ordered writer
 * must agree byte for byte (pure encode/decode beside the one writer, ARCHITECTURE §6); split
 * apart, that agreement would be spread over files.
 */
public final class PersistentStore implements ExceptionStore {

    public static final int MAGIC = 0x70416e53;
    public static final int VERSION = 1;
    public static final long DEFAULT_CHUNK_SECTORS = 32;
    static final int HEADER_CHUNKS = 1;
    static final int ENTRY_BYTES = 16;

    private static final System.Logger LOG = System.getLogger(PersistentStore.class.getName());
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final BioFlags COMMIT = BioFlags.of(true, true, true);

    /** Receives each committed exception found on disk. */
    @FunctionalInterface
    public interface Replay {
        void exception(long oldChunk, long newChunk);
    }

    /** One metadata write: an area's content and the commits it makes durable. */
    private static final class AreaWrite {
        final long area;
        byte[] bytes;
        boolean zeroNext;
        final List<CommitDone> callbacks;

        AreaWrite(long area, byte[] bytes, boolean zeroNext, List<CommitDone> callbacks) {
            this.area = area;
            this.bytes = bytes;
            this.zeroNext = zeroNext;
            this.callbacks = callbacks;
        }
    }

    private final BlockDevice cow;
    private final StoreType type;
    private final long chunkSectors;
    private final int chunkBytes;
    private final int perArea;

    /** Next free chunk; written under the snapshot's allocation lock (or by a merge), read by status. */
    private volatile long nextFree = HEADER_CHUNKS + 1;
    /** Prepared exceptions not yet committed. */
    private final AtomicInteger pendingCount = new AtomicInteger();

    /** Leaf lock: guards the commit side below. Never held across I/O or a callback. */
    private final Object lock = new Object();
    /** Live entries, {old, new} pairs in commit order. */
    @GuardedBy("lock")
    private long[] log = new long[64];
    /** Entries in {@link #log}. */
    @GuardedBy("lock")
    private int logSize;
    /** Written under {@link #lock}; volatile for status, which reads it without. */
    private volatile long currentArea;
    /** Entries in the current area. */
    @GuardedBy("lock")
    private int currentCommitted;
    /** Written under {@link #lock} (or while opening); volatile for status, which reads it without. */
    private volatile boolean valid = true;
    /**
     * Area {@link #imageArea} as encoded from {@code log[imageArea * E, imageEnd)}, the rest zero;
     * entries below {@link #imageEnd} never change while it stands (it is dropped when the log shrinks).
     */
    @GuardedBy("lock")
    private byte[] image;
    @GuardedBy("lock")
    private MemorySegment imageSegment;
    @GuardedBy("lock")
    private long imageArea = -1;
    @GuardedBy("lock")
    private int imageEnd;
    /** The buffer of an area write that completed (or was replaced in the queue), for the next one. */
    @GuardedBy("lock")
    private byte[] spareBytes;
    /** Callbacks of commits not yet part of a queued write. */
    @GuardedBy("lock")
    private List<CommitDone> batch = new ArrayList<>();
    /** Area writes waiting for the one in flight. */
    @GuardedBy("lock")
    private final ArrayDeque<AreaWrite> queue = new ArrayDeque<>();
    /** An area write is in flight. */
    @GuardedBy("lock")
    private boolean writing;

    private PersistentStore(BlockDevice cow, StoreType type, long chunkSectors) {
        this.cow = cow;
        this.type = type;
        this.chunkSectors = chunkSectors;
        this.chunkBytes = (int) (chunkSectors << 9);
        this.perArea = chunkBytes / ENTRY_BYTES;
    }

    /* ---- Opening ---- */

    /**
     * Opens the store on {@code cow}, blocking while it reads (a table load does this): a COW
     * device whose header is zero becomes a new, empty store (header and first area written);
     * otherwise the header is checked and every committed exception is passed to {@code replay}.
     * A store whose header says {@code valid = 0} opens as invalid ({@link #valid()}) and replays
     * nothing.
     *
     * @param tableChunkSectors the chunk size the table asks for; 0 takes the header's (or the
     *        default 32 for a new store). The header's size wins over the table's, as in the kernel.
     * @throws SnapshotException for a foreign or damaged header, an unknown version, or I/O errors
     */
    public static PersistentStore open(BlockDevice cow, StoreType type, long tableChunkSectors, BlockDevice origin,
                                       Replay replay) throws SnapshotException {
        if (!type.persistent()) {
            throw new IllegalArgumentException("not a persistent store type: " + type);
        }
        try {
            int lbs = cow.limits().logicalBlockSize();
            MemorySegment head = MemorySegment.ofArray(new byte[lbs]);
            SyncIo.read(cow, 0, head);
            int magic = head.get(U32, 0);
            if (magic == 0) {
                long chunk = tableChunkSectors == 0 ? Math.max(DEFAULT_CHUNK_SECTORS, lbs >> 9) : tableChunkSectors;
                ExceptionStore.checkChunkSize(chunk, cow, origin);
                PersistentStore s = new PersistentStore(cow, type, chunk);
                s.format();
                return s;
            }
            if (magic != MAGIC) {
                throw new SnapshotException(String.format("Invalid or corrupt snapshot: COW device '%s' has magic 0x%08x,"
                        + " not 0x%08x (\"SnAp\"); zero its first sector to start a new snapshot", cow.name(), magic, MAGIC));
            }
            int version = head.get(U32, 8);
            if (version != VERSION) {
                throw new SnapshotException("unable to handle snapshot disk version " + Integer.toUnsignedString(version)
                        + " on COW device '" + cow.name() + "' (this store reads version " + VERSION + ")");
            }
            long chunk = Integer.toUnsignedLong(head.get(U32, 12));
            try {
                ExceptionStore.checkChunkSize(chunk, cow, origin);
            } catch (SnapshotException e) {
                throw new SnapshotException("Invalid or corrupt snapshot: header of COW device '" + cow.name() + "': "
                        + e.getMessage());
            }
            if (tableChunkSectors != 0 && tableChunkSectors != chunk) {
                LOG.log(Level.WARNING, "chunk size {0} in device metadata overrides table chunk size of {1}",
                        chunk, tableChunkSectors);
            }
            PersistentStore s = new PersistentStore(cow, type, chunk);
            if (head.get(U32, 4) == 0) {
                s.valid = false;
                return s;
            }
            s.readExceptions(replay);
            return s;
        } catch (BlockIoException e) {
            throw new SnapshotException("Failed to read snapshot metadata from COW device '" + cow.name() + "': "
                    + e.getMessage());
        }
    }

    /** A new store: header, then an empty first area, both durable. */
    private void format() throws SnapshotException {
        if (cow.sizeBytes() < (HEADER_CHUNKS + 2L) * chunkBytes) {
            throw new SnapshotException("COW device '" + cow.name() + "' is too small: " + (cow.sizeBytes() >> 9)
                    + " sectors hold no data chunk after the header and first metadata area of " + chunkSectors
                    + "-sector chunks");
        }
        SyncIo.write(cow, 0, MemorySegment.ofArray(header(true)), BioFlags.FUA);
        SyncIo.write(cow, areaOffset(0), MemorySegment.ofArray(new byte[chunkBytes]), BioFlags.FUA);
    }

    private void readExceptions(Replay replay) throws SnapshotException {
        long cowChunks = cow.sizeBytes() / chunkBytes;
        MemorySegment area = MemorySegment.ofArray(new byte[chunkBytes]);
        long max = HEADER_CHUNKS;
        long a = 0;
        int i = 0;
        // Areas are read until one is not full; a full last area with no room for another ends the list too.
        read:
        for (; areaLocation(a) < cowChunks; a++) {
            SyncIo.read(cow, areaOffset(a), area);
            for (i = 0; i < perArea; i++) {
                long oldChunk = area.get(U64, (long) i * ENTRY_BYTES);
                long newChunk = area.get(U64, (long) i * ENTRY_BYTES + 8);
                if (newChunk == 0) {
                    break read;
                }
                if (newChunk >= cowChunks || isMetadata(newChunk)) {
                    throw new SnapshotException("Invalid or corrupt snapshot: entry " + i + " of metadata area " + a
                            + " on COW device '" + cow.name() + "' names chunk " + newChunk
                            + ", which is not a data chunk of the device");
                }
                max = Math.max(max, newChunk);
                synchronized (lock) { // uncontended: the store is not published yet
                    appendLog(oldChunk, newChunk);
                }
                replay.exception(oldChunk, newChunk);
            }
            i = 0;
        }
        currentArea = a;
        synchronized (lock) {
            currentCommitted = i;
        }
        nextFree = skipMetadata(Math.max(nextFree, max + 1));
    }

    /* ---- Layout ---- */

    private long areaLocation(long area) {
        return HEADER_CHUNKS + (perArea + 1L) * area;
    }

    private long areaOffset(long area) {
        return areaLocation(area) * chunkBytes;
    }

    private boolean isMetadata(long chunk) {
        return chunk % (perArea + 1L) == HEADER_CHUNKS;
    }

    /** {@code next} or, if it is a metadata area's chunk, the one after it (the kernel's skip_metadata). */
    private long skipMetadata(long next) {
        return isMetadata(next) ? next + 1 : next;
    }

    private byte[] header(boolean isValid) {
        byte[] b = new byte[chunkBytes];
        MemorySegment m = MemorySegment.ofArray(b);
        m.set(U32, 0, MAGIC);
        m.set(U32, 4, isValid ? 1 : 0);
        m.set(U32, 8, VERSION);
        m.set(U32, 12, (int) chunkSectors);
        return b;
    }

    /**
     * Area {@code area} with the entries of {@link #log} before {@code end}, a copy of its own for
     * one write. The area is kept encoded ({@link #image}) and only the entries added since the
     * last call are encoded; the copy goes into the buffer of a finished write if there is one:
     * issue 20's fourth-round profile found the whole area encoded again for every commit batch
     * (up to 256 entries for a batch of one) into a new buffer each time, 10 to 15 % of the
     * execution samples and half the bytes allocated in an eight-worker origin-write run under
     * both strategies.
     */
    @GuardedBy("lock")
    private byte[] encodeArea(long area, int end) {
        int first = (int) (area * perArea);
        if (imageArea != area || imageEnd > end) {
            image = new byte[chunkBytes];
            imageSegment = MemorySegment.ofArray(image);
            imageArea = area;
            imageEnd = first;
        }
        for (int i = imageEnd; i < end; i++) {
            imageSegment.set(U64, (long) (i - first) * ENTRY_BYTES, log[2 * i]);
            imageSegment.set(U64, (long) (i - first) * ENTRY_BYTES + 8, log[2 * i + 1]);
        }
        imageEnd = end;
        byte[] out = spareBytes != null ? spareBytes : new byte[chunkBytes];
        spareBytes = null;
        System.arraycopy(image, 0, out, 0, chunkBytes);
        return out;
    }

    /** (or is still opening the store). */
    @GuardedBy("lock")
    private void appendLog(long oldChunk, long newChunk) {
        if (2 * logSize + 2 > log.length) {
            log = Arrays.copyOf(log, log.length * 2);
        }
        log[2 * logSize] = oldChunk;
        log[2 * logSize + 1] = newChunk;
        logSize++;
    }

    /* ---- Exceptions ---- */

    @Override
    public StoreType type() {
        return type;
    }

    @Override
    public long chunkSectors() {
        return chunkSectors;
    }

    /** False once the store was invalidated, or if it was opened from an invalid header. */
    public boolean valid() {
        return valid;
    }

    @Override
    public long prepareException() {
        long n = nextFree;
        if ((cow.sizeBytes() >> 9) < (n + 1) * chunkSectors) {
            return NO_SPACE;
        }
        nextFree = skipMetadata(n + 1);
        pendingCount.incrementAndGet();
        return n;
    }

    @Override
    public void commitException(long oldChunk, long newChunk, boolean ok, CommitDone done) {
        AreaWrite start = null;
        synchronized (lock) {
            if (!ok) {
                valid = false;
            }
            long area = currentArea;
            appendLog(oldChunk, newChunk);
            currentCommitted++;
            batch.add(done);
            boolean full = currentCommitted == perArea;
            if (pendingCount.decrementAndGet() != 0 && !full) {
                return; // more commits are on their way: they will share the write
            }
            enqueueLocked(area, full);
            if (!writing) {
                writing = true;
                start = queue.poll();
            }
        }
        if (start != null) {
            issue(start);
        }
    }

    /** Queues a write of {@code area} for the batch, joining a queued write of it. */
    @GuardedBy("lock")
    private void enqueueLocked(long area, boolean full) {
        byte[] bytes = encodeArea(area, logSize);
        List<CommitDone> callbacks = batch;
        batch = new ArrayList<>();
        AreaWrite last = queue.peekLast();
        if (last != null && last.area == area) {
            spareBytes = last.bytes; // queued, never submitted
            last.bytes = bytes;
            last.zeroNext |= full;
            last.callbacks.addAll(callbacks);
        } else {
            queue.add(new AreaWrite(area, bytes, full, callbacks));
        }
        if (full) {
            currentArea = area + 1;
            currentCommitted = 0;
        }
    }

    /** Starts one area write: zero the next area if this one is full, then the area with PREFLUSH and FUA. */
    private void issue(AreaWrite w) {
        if (!valid) {
            finish(w, IoStatus.OK); // an invalid store writes nothing more; callbacks hear valid = false
            return;
        }
        Runnable writeArea = () -> cow.submit(Bio.write(areaOffset(w.area), MemorySegment.ofArray(w.bytes), COMMIT,
                b -> finish(w, b.status())));
        long next = areaOffset(w.area + 1);
        if (w.zeroNext && next + chunkBytes <= cow.sizeBytes()) {
            cow.submit(Bio.write(next, MemorySegment.ofArray(new byte[chunkBytes]), BioFlags.NONE, z -> {
                if (z.status().ok()) {
                    writeArea.run();
                } else {
                    finish(w, z.status());
                }
            }));
        } else {
            writeArea.run();
        }
    }

    private void finish(AreaWrite w, IoStatus status) {
        AreaWrite next;
        boolean nowValid;
        synchronized (lock) {
            if (!status.ok()) {
                LOG.log(Level.ERROR, "metadata write to COW device ''{0}'' failed ({1}): invalidating the snapshot",
                        cow.name(), status);
                valid = false;
            }
            nowValid = valid;
            spareBytes = w.bytes; // a completed write leaves its buffer to its submitter
            next = queue.poll();
            if (next == null) {
                writing = false;
            }
        }
        for (CommitDone c : w.callbacks) {
            c.committed(nowValid);
        }
        if (next != null) {
            issue(next);
        }
    }

    @Override
    public Usage usage() {
        return new Usage(nextFree * chunkSectors, cow.sizeBytes() >> 9, (currentArea + 1 + HEADER_CHUNKS) * chunkSectors);
    }

    @Override
    public void dropSnapshot() {
        synchronized (lock) {
            valid = false;
        }
        cow.submit(Bio.write(0, MemorySegment.ofArray(header(false)), BioFlags.FUA, b -> {
            if (!b.status().ok()) {
                LOG.log(Level.WARNING, "could not mark the snapshot on COW device ''{0}'' invalid: {1}",
                        cow.name(), b.status());
            }
        }));
    }

    @Override
    public long exceptionCount() {
        synchronized (lock) {
            return logSize;
        }
    }

    /* ---- Merging ---- */

    @Override
    public MergeRun prepareMerge() {
        synchronized (lock) {
            if (currentCommitted == 0) {
                if (currentArea == 0) {
                    return MergeRun.NONE;
                }
                currentArea--;
                currentCommitted = perArea;
            }
            int last = logSize - 1;
            long lastOld = log[2 * last];
            long lastNew = log[2 * last + 1];
            int n = 1;
            while (n < currentCommitted && log[2 * (last - n)] == lastOld - n && log[2 * (last - n) + 1] == lastNew - n) {
                n++;
            }
            return new MergeRun(lastOld, lastNew, n);
        }
    }

    @Override
    public void commitMerge(int count, Consumer<IoStatus> done) {
        long area;
        byte[] bytes;
        synchronized (lock) {
            if (count > currentCommitted) {
                throw new IllegalStateException("merging " + count + " exceptions, the area holds " + currentCommitted);
            }
            area = currentArea;
            bytes = encodeArea(area, logSize - count);
        }
        cow.submit(Bio.write(areaOffset(area), MemorySegment.ofArray(bytes), COMMIT, b -> {
            if (b.status().ok()) {
                synchronized (lock) {
                    currentCommitted -= count;
                    logSize -= count;
                    imageArea = -1; // entries from logSize on will be written again
                    nextFree = areaLocation(currentArea) + currentCommitted + 1;
                }
            }
            done.accept(b.status());
        }));
    }
}
