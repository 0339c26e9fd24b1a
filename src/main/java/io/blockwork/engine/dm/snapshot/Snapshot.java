package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.BlockDevice;
import java.lang.System.Logger.Level;

/**
 * One snapshot of an origin device (the kernel's {@code struct dm_snapshot}): its exception
 * store, its complete and pending exception tables, and the paths that use them.
 *
 * <p>Design notes.
 * <ul>
 *   <li><b>Chunks.</b> Origin and snapshot are cut into chunks of {@code chunkSectors}. A chunk
 *       is <em>complete</em> once its old content sits in a COW chunk and the store has recorded
 *       it; from then on snapshot I/O to it goes to the COW and origin writes to it pass.
 *   <li><b>Pending exceptions.</b> The first write to a chunk, through the origin or the snapshot,
 *       creates a {@link PendingException}: a COW chunk is allocated, a copy started (or, for a
 *       snapshot write covering the chunk, the write itself stands in for the copy), and the
 *       writes wait on it. Copies finish in any order; the {@link CommitSequencer} completes them
 *       in allocation order: store commit, then the exception goes into the complete table,
 *       tracked reads drain, the pending exception is removed, and the waiting writes go on
 *       (that path from allocation to release is {@link ExceptionPipeline}'s).
 *   <li><b>Reads</b> of a chunk that is not complete go to the origin, tracked, so a read during a
 *       pending copy sees the old data: origin writes wait for the copy, and the completion waits
 *       for tracked reads before it lets them through ({@link ChunkTracker}).
 *   <li><b>Locking</b> is the strategy's ({@link SnapshotLocking}): the code names what it needs
 *       (state shared, chunk buckets, allocation, state exclusive) and never copies,
 *       submits or waits with a bucket locked (it allocates a pending exception with it locked:
 *       a Java allocation does not sleep). See docs/engine/locking.md for the order.
 *   <li><b>State</b>: {@link #valid}, {@link #overflowed}, {@link #mergeFailed} change only with
 *       the state exclusive; the I/O paths read them with their chunk locked (they are volatile
 *       so status and fast-path checks can read them without a lock).
 * </ul>
 * Which target may use the snapshot, and when it becomes active, is decided by {@link Origins}.
 *
 * <p>Size note: over 400 lines because dm-snap's I/O paths (origin write, snapshot read and
 * write, invalidation, the merge hand-off) share the exception tables, the state and the locking
 * strategy's protocol; kept together, the lock order of every I/O path is checked in one file.
 * The completion path, which only takes a chunk's lock (and the allocation lock inside it), is
 * {@link ExceptionPipeline}.
 */
public final class Snapshot {

    private static final System.Logger LOG = System.getLogger(Snapshot.class.getName());
    /** Per-bio data: this bio is tracked on its chunk until it ends. */
    static final Object TRACKED = new Object();

    private final BlockDevice origin;
    private final BlockDevice cow;
    private final ExceptionStore store;
    private final long chunkBytes;
    private final int chunkShift;
    final ExceptionTable complete;
    final PendingTable pending;
    final SnapshotLocking locks;
    final ChunkTracker tracker = new ChunkTracker();
    private final CowThrottle throttle;
    final ChunkCopier copier;
    /** Allocation, copy, commit and completion of the pending exceptions. */
    private final ExceptionPipeline exceptions;

    /** State: written with the state exclusive, read with a chunk locked. */
    private volatile boolean valid;
    private volatile boolean overflowed;
    volatile boolean mergeFailed;
    /** True once a target resumed it: origin writes copy out for it from then on. */
    private volatile boolean active;
    /** Set when a merge target owns the snapshot; origin writes no longer copy out for it. */
    private volatile Merge merge;
    /** True if a full store overflows snapshot writes ({@code PO} in the owner's table). */
    private volatile boolean overflowAllowed;
    /** Tells the owning mapped device about invalidation and overflow. */
    private volatile Runnable event = () -> {};

    /**
     * A snapshot over {@code store}, which may already hold exceptions: {@code recovered} lists
     * them as {old, new} pairs, in commit order.
     */
    Snapshot(BlockDevice origin, BlockDevice cow, ExceptionStore store, boolean storeValid, long[] recovered,
             int recoveredCount, SnapshotLocking.Factory locking, long throttleBytes, ChunkCopier copier) {
        this.origin = origin;
        this.cow = cow;
        this.store = store;
        this.chunkBytes = store.chunkSectors() << 9;
        this.chunkShift = Long.numberOfTrailingZeros(chunkBytes);
        this.complete = new ExceptionTable(ExceptionTable.bucketsFor(Math.min(origin.sizeBytes(), cow.sizeBytes()) >> chunkShift));
        this.pending = new PendingTable(PendingTable.bucketsFor(complete.bucketCount()),
                PendingTable.groupsFor(complete.bucketCount()));
        this.locks = locking.create(complete.bucketCount(), pending.bucketCount());
        this.throttle = new CowThrottle(throttleBytes);
        this.copier = copier;
        this.exceptions = new ExceptionPipeline(this, throttle);
        this.valid = storeValid;
        this.overflowAllowed = store.type().overflowSupported();
        for (int i = 0; i < recoveredCount; i++) {
            complete.insert(recovered[2 * i], recovered[2 * i + 1]);
        }
    }

    /* ---- Snapshot target I/O ---- */

    /** A read of the snapshot: from the COW if the chunk is complete, else from the origin, tracked. */
    public Route read(Bio bio) {
        long chunk = bio.offset() >>> chunkShift;
        int cb = complete.bucket(chunk);
        locks.lockChunk(cb);
        try {
            if (!valid) {
                return Route.IO_ERROR;
            }
            long e = complete.lookup(chunk);
            if (e >= 0) {
                return new Route.ToCow(cowOffset(e, bio.offset()));
            }
            tracker.track(chunk);
        } finally {
            locks.unlockChunk(cb);
        }
        bio.context(TRACKED);
        return new Route.ToOrigin(bio.offset());
    }

    /**
     * What the snapshot's range holds: copied chunks are data (the COW holds them); a run of
     * chunks not copied reads through to the origin, so the origin answers, unless one of them was
     * copied while it did. That check afterwards is what makes the answer safe: the origin's
     * content of a chunk changes only after the chunk was copied, so if none was, the origin's
     * answer is the snapshot's.
     */
    public void allocation(long offset, long length, Extents out) {
        long end = offset + length;
        long pos = offset;
        while (pos < end && !out.stopped()) {
            long runEnd = pos;
            while (runEnd < end && !copied(runEnd >>> chunkShift)) {
                runEnd = Math.min(end, ((runEnd >>> chunkShift) + 1) << chunkShift);
            }
            if (runEnd == pos) {
                long next = Math.min(end, ((pos >>> chunkShift) + 1) << chunkShift);
                out.add(next - pos, Allocation.DATA);
                pos = next;
                continue;
            }
            Extents throughOrigin = out.fresh();
            origin.allocation(pos, runEnd - pos, throughOrigin);
            boolean copiedSince = false;
            for (long at = pos; at < runEnd && !copiedSince; at = ((at >>> chunkShift) + 1) << chunkShift) {
                copiedSince = copied(at >>> chunkShift);
            }
            if (copiedSince) {
                out.add(runEnd - pos, Allocation.DATA);
            } else {
                out.addAll(throughOrigin);
            }
            pos = runEnd;
        }
    }

    /** True if the chunk is in the COW (or the snapshot is invalid, when reads fail and nothing is promised). */
    private boolean copied(long chunk) {
        int cb = complete.bucket(chunk);
        locks.lockChunk(cb);
        try {
            return !valid || complete.lookup(chunk) >= 0;
        } finally {
            locks.unlockChunk(cb);
        }
    }

    /**
     * A write (or discard, or write-zeroes) to the snapshot: to the COW chunk if the chunk is
     * complete; otherwise it waits on the chunk's pending exception, created if need be (a write
     * covering the whole chunk is then the copy).
     */
    public Route write(Bio bio) {
        if (!valid) {
            return Route.IO_ERROR;
        }
        if (!throttle.admit(() -> deliver(bio, write(bio)))) {
            return Route.HELD;
        }
        long chunk = bio.offset() >>> chunkShift;
        int cb = complete.bucket(chunk);
        PendingException pe;
        boolean startFull = false;
        boolean startCopy = false;
        locks.lockChunk(cb);
        try {
            if (!valid) {
                return Route.IO_ERROR;
            }
            if (overflowed) {
                return Route.NO_SPACE;
            }
            long e = complete.lookup(chunk);
            if (e >= 0) {
                return new Route.ToCow(cowOffset(e, bio.offset()));
            }
            pe = pending.lookup(chunk);
            if (pe == null) {
                PendingException fresh = new PendingException(chunk);
                if (exceptions.insert(fresh)) {
                    pe = fresh;
                }
            }
            if (pe != null) {
                if (!pe.started && bio.length() == chunkBytes) {
                    pe.started = true;
                    pe.fullBio = bio;
                    startFull = true;
                } else {
                    pe.addSnapshotBio(bio);
                    if (!pe.started) {
                        pe.started = true;
                        startCopy = true;
                    }
                }
            }
        } finally {
            locks.unlockChunk(cb);
        }
        if (pe == null) {
            return outOfSpace();
        }
        if (startFull) {
            exceptions.startFullWrite(pe, bio);
        } else if (startCopy) {
            exceptions.startCopy(pe);
        }
        return Route.HELD;
    }

    /** A bio through the merged view of the {@code snapshot-merge} target that owns this snapshot. */
    public Route mapMerged(Bio bio) {
        Merge m = merge;
        return m == null ? Route.IO_ERROR : m.map(bio);
    }

    /** Ends tracking for a bio mapped by {@link #read} (or a merge's tracked write); call from end-io. */
    public void endIo(Bio bio) {
        if (bio.context() == TRACKED) {
            bio.context(null);
            tracker.untrack(bio.offset() >>> chunkShift);
        }
    }

    /** Carries out a route for a bio the snapshot held and now lets go. */
    void deliver(Bio bio, Route route) {
        switch (route) {
            case Route.ToCow c -> {
                cow.submit(bio.remap(c.offset()));
                bio.endio();
            }
            case Route.ToOrigin o -> {
                origin.submit(bio.remap(o.offset()));
                bio.endio();
            }
            case Route.Failed f -> bio.endio(f.status());
            case Route.Held h -> { }
        }
    }

    /** A snapshot write found the store full: overflow ({@code PO}) or invalidate. */
    private Route outOfSpace() {
        if (!overflowAllowed) {
            invalidate("Unable to allocate exception: the COW device is full");
            return Route.IO_ERROR;
        }
        boolean now;
        locks.lockState();
        try {
            now = valid && !overflowed;
            if (now) {
                overflowed = true;
            }
        } finally {
            locks.unlockState();
        }
        if (now) {
            LOG.log(Level.ERROR, "Snapshot overflowed: Unable to allocate exception (COW device ''{0}'' is full)", cow.name());
            event.run();
        }
        return Route.NO_SPACE;
    }

    /* ---- Origin writes ---- */

    /** False if the throttle queued {@code retry}: too many bytes are being copied. */
    boolean admitOriginWrite(Runnable retry) {
        return throttle.admit(retry);
    }

    /** Whether origin writes must consider this snapshot at all (rechecked under the chunk lock). */
    boolean takesOriginWrites() {
        return active && valid && merge == null;
    }

    /**
     * This snapshot's part of an origin write to {@code [from, to)} (the loop body of the
     * kernel's {@code __origin_write}): every chunk of the range gets an exception, complete or
     * pending; new pending exceptions are started. {@code waiter} (the write's retry) is queued on
     * the first pending exception found, and null is returned; if there was none, {@code waiter}
     * comes back unplaced. The caller holds the origin registry's read lock.
     */
    Runnable originWrite(long from, long to, Runnable waiter) {
        for (long chunk = from >>> chunkShift, last = (to - 1) >>> chunkShift; chunk <= last; chunk++) {
            int cb = complete.bucket(chunk);
            PendingException start = null;
            boolean full = false;
            locks.lockChunk(cb);
            try {
                if (!valid || !active || merge != null) {
                    return waiter;
                }
                PendingException pe = pending.lookup(chunk);
                if (pe == null) {
                    if (complete.lookup(chunk) >= 0) {
                        continue;
                    }
                    PendingException fresh = new PendingException(chunk);
                    if (exceptions.insert(fresh)) {
                        pe = fresh;
                    } else {
                        full = true;
                    }
                }
                if (pe != null) {
                    if (waiter != null) {
                        pe.addOriginWaiter(waiter);
                        waiter = null;
                    }
                    if (!pe.started) {
                        pe.started = true;
                        start = pe;
                    }
                }
            } finally {
                locks.unlockChunk(cb);
            }
            if (full) {
                // The origin write must go on, and this snapshot cannot keep the old data: it is lost.
                invalidate("Unable to allocate exception for an origin write: the COW device is full");
                return waiter;
            }
            if (start != null) {
                exceptions.startCopy(start);
            }
        }
        return waiter;
    }

    /* ---- State ---- */

    /** Marks the snapshot invalid: all its I/O fails from now on; a persistent store records it. */
    void invalidate(String why) {
        boolean now;
        locks.lockState();
        try {
            now = valid;
            valid = false;
        } finally {
            locks.unlockState();
        }
        if (now) {
            LOG.log(Level.ERROR, "Invalidating snapshot on COW device ''{0}'': {1}", cow.name(), why);
            store.dropSnapshot();
            event.run();
        }
    }

    /** Called with the registry's control lock held, when a target takes the snapshot over. */
    void owner(boolean overflowSupported, Runnable ownerEvent, Merge mergeDriver) {
        locks.lockState();
        try {
            overflowAllowed = overflowSupported;
            event = ownerEvent;
            if (mergeDriver != null) {
                merge = mergeDriver;
            }
        } finally {
            locks.unlockState();
        }
    }

    void activate() {
        active = true;
    }

    /** Waits until every pending exception has completed (a closing snapshot's last step before its copier stops). */
    void awaitPendingDrained() {
        exceptions.awaitDrained();
    }

    /** The snapshot's state and space, for status lines and the API. */
    public SnapshotStatus status() {
        ExceptionStore.Usage u = store.usage();
        SnapshotStatus.State s = !valid ? SnapshotStatus.State.INVALID
                : mergeFailed ? SnapshotStatus.State.MERGE_FAILED
                : overflowed ? SnapshotStatus.State.OVERFLOW
                : SnapshotStatus.State.VALID;
        Merge m = merge;
        return new SnapshotStatus(s, u.allocatedSectors(), u.totalSectors(), u.metadataSectors(),
                store.exceptionCount(), m == null ? SnapshotStatus.MergeState.NONE : m.state());
    }

    /* ---- Accessors ---- */

    long cowOffset(long newChunk, long offset) {
        return newChunk * chunkBytes + (offset & (chunkBytes - 1));
    }

    public BlockDevice origin() {
        return origin;
    }

    public BlockDevice cow() {
        return cow;
    }

    public ExceptionStore store() {
        return store;
    }

    public long chunkSectors() {
        return chunkBytes >> 9;
    }

    long chunkBytes() {
        return chunkBytes;
    }

    int chunkShift() {
        return chunkShift;
    }

    public SnapshotLocking.Kind locking() {
        return locks.kind();
    }

    public boolean valid() {
        return valid;
    }

    public boolean overflowed() {
        return overflowed;
    }

    public boolean active() {
        return active;
    }

    Merge merge() {
        return merge;
    }

    int pendingExceptions() {
        return exceptions.pendingExceptions();
    }

    /** Copies that finished ahead of an earlier one and wait for it to commit first. */
    int outOfOrderCompletions() {
        return exceptions.outOfOrderCompletions();
    }

    long copyingBytes() {
        return throttle.inProgressBytes();
    }

    int throttledWrites() {
        return throttle.waiting();
    }

    @Override
    public String toString() {
        return "Snapshot[" + origin.name() + " <- " + cow.name() + " " + store.type().code() + " " + chunkSectors() + "]";
    }
}
