package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

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
 *       tracked reads drain, the pending exception is removed, and the waiting writes go on.
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
 * <p>Size note: over 400 lines because dm-snap's paths (origin write, snapshot read and write,
 * completion, invalidation, the merge hand-off) share the exception tables and the locking
 * strategy's protocol; kept together, the lock order of every path is checked in one file.
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
    private final CommitSequencer sequencer = new CommitSequencer(this::completeException);
    /** A store commit's answer, waiting for a thread to publish it. */
    private record Committed(PendingException pe, boolean ok) {}
    /** Committed exceptions whose completion has not run yet; see {@link #completeException}. */
    private final ConcurrentLinkedQueue<Committed> committed = new ConcurrentLinkedQueue<>();
    private final CowThrottle throttle;
    final ChunkCopier copier;
    /**
     * Whether copies complete through the {@link CommitSequencer}, in allocation order. A
     * persistent store needs it (its metadata areas must describe every chunk before the free
     * pointer); a transient one writes nothing, so under {@code fine} each thread that finishes a
     * copy completes it at once instead of waiting behind another thread's earlier one.
     * {@code global} keeps the kernel's order for every store, as before.
     */
    private final boolean commitsInOrder;

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

    /** Guarded by the allocation lock: the next exception's place in commit order. */
    private long startSequence;
    /** Pending exceptions not yet completed; the snapshot may close once it is zero. */
    private final AtomicInteger pendingCount = new AtomicInteger();
    /** Guards nothing: the wait/notify hand-off of {@link #awaitPendingDrained}. */
    private final Object drained = new Object();

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
        this.commitsInOrder = store.type().persistent() || locks.kind() != SnapshotLocking.Kind.FINE;
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
                if (insertPending(fresh)) {
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
            PendingException full = pe;
            throttle.startCopy(chunkBytes);
            cow.submit(bio.derive(bio.op(), full.newChunk * chunkBytes, bio.length(), 0, bio.flags(),
                    b -> copyDone(full, b.status().ok())));
        } else if (startCopy) {
            startCopy(pe);
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
                    if (insertPending(fresh)) {
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
                startCopy(start);
            }
        }
        return waiter;
    }

    /* ---- Pending exceptions ---- */

    /**
     * With the chunk locked: allocates {@code pe}'s COW chunk and inserts it; false if the store is
     * full. The allocation lock pairs the COW chunk with its place in commit order; where commits
     * are not ordered ({@code fine} on a transient store) the store's own atomic allocation is
     * enough, and the one lock every new exception took is gone from that path (issue 20: at eight
     * workers on two cores, a writer descheduled while holding it held up every other writer).
     */
    private boolean insertPending(PendingException pe) {
        if (commitsInOrder) {
            locks.lockAllocation();
            try {
                if (!allocateChunk(pe)) {
                    return false;
                }
                pe.sequence = startSequence++;
            } finally {
                locks.unlockAllocation();
            }
        } else if (!allocateChunk(pe)) {
            return false;
        }
        pending.insert(pe);
        pendingCount.incrementAndGet();
        return true;
    }

    /** {@code pe}'s COW chunk from the store; false if the store is full. */
    private boolean allocateChunk(PendingException pe) {
        long n = store.prepareException();
        if (n == ExceptionStore.NO_SPACE) {
            return false;
        }
        pe.newChunk = n;
        return true;
    }

    private void startCopy(PendingException pe) {
        long from = pe.oldChunk * chunkBytes;
        long length = Math.min(chunkBytes, origin.sizeBytes() - from);
        throttle.startCopy(chunkBytes);
        copier.copyChunk(origin, from, cow, pe.newChunk * chunkBytes, length, ok -> copyDone(pe, ok));
    }

    private void copyDone(PendingException pe, boolean ok) {
        pe.copyError = !ok;
        if (commitsInOrder) {
            sequencer.finished(pe);
        } else {
            store.commitException(pe.oldChunk, pe.newChunk, !pe.copyError, done -> pendingComplete(pe, done));
        }
        throttle.endCopy(chunkBytes);
        runCommitted();
    }

    /**
     * In allocation order, one at a time (the sequencer's drainer). Only the store commit needs
     * that order: what follows it (publishing the exception, releasing the waiting writes, which
     * re-run their origin write and submit it) is left in {@link #committed} when the store
     * answers on the drainer's own stack, and every thread that finishes a copy takes its share,
     * so the releases do not all fall on the one that drains.
     */
    private void completeException(PendingException pe) {
        store.commitException(pe.oldChunk, pe.newChunk, !pe.copyError, ok -> {
            if (sequencer.drainingHere()) {
                committed.add(new Committed(pe, ok));
            } else {
                pendingComplete(pe, ok); // a store's own completion thread (a batched area write)
            }
        });
    }

    /** Runs the committed exceptions' completions queued so far (any thread, after its copy finished). */
    private void runCommitted() {
        Committed c;
        while ((c = committed.poll()) != null) {
            pendingComplete(c.pe(), c.ok());
        }
    }

    /**
     * The store recorded the exception (or failed to): publish it, then let the waiters go. In
     * the common case, no read tracked on the chunk, one pass under the chunk's lock both inserts
     * the exception and removes the pending one (as the kernel's {@code pending_complete} does);
     * a tracked read makes the removal wait until it drained. Reads are tracked under the same
     * lock, so one tracked later than this check found the exception and went to the COW.
     */
    private void pendingComplete(PendingException pe, boolean ok) {
        if (!ok) {
            invalidate(pe.copyError ? "copying chunk " + pe.oldChunk + " failed" : "the exception store failed");
            finishPending(pe, false);
            return;
        }
        int cb = complete.bucket(pe.oldChunk);
        boolean inserted;
        boolean removed = false;
        locks.lockChunk(cb);
        try {
            inserted = valid;
            if (inserted) {
                // From here snapshot reads go to the COW; the pending exception still holds origin writes back.
                complete.insert(pe.oldChunk, pe.newChunk);
                if (!tracker.isTracked(pe.oldChunk)) {
                    pending.remove(pe);
                    removed = true;
                }
            }
        } finally {
            locks.unlockChunk(cb);
        }
        if (removed) {
            releasePending(pe, true);
        } else if (inserted) {
            tracker.whenDrained(pe.oldChunk, () -> finishPending(pe, true));
        } else {
            finishPending(pe, false);
        }
    }

    private void finishPending(PendingException pe, boolean ok) {
        int cb = complete.bucket(pe.oldChunk);
        locks.lockChunk(cb);
        try {
            pending.remove(pe);
        } finally {
            locks.unlockChunk(cb);
        }
        releasePending(pe, ok);
    }

    /** After {@code pe} left the pending table: ends or re-runs everything that waited on it. */
    private void releasePending(PendingException pe, boolean ok) {
        // Only this thread sees the lists now: writers add to them under the chunk's lock, after finding pe in the table.
        List<Bio> bios = pe.snapshotBios;
        List<Runnable> waiters = pe.originWaiters;
        pe.snapshotBios = null;
        pe.originWaiters = null;
        if (pe.fullBio != null) {
            pe.fullBio.endio(ok ? IoStatus.OK : IoStatus.IO_ERROR);
        }
        if (bios != null) {
            for (Bio b : bios) {
                deliver(b, ok ? new Route.ToCow(cowOffset(pe.newChunk, b.offset())) : Route.IO_ERROR);
            }
        }
        if (waiters != null) {
            waiters.forEach(Runnable::run);
        }
        if (pendingCount.decrementAndGet() == 0) {
            synchronized (drained) {
                drained.notifyAll();
            }
        }
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
        synchronized (drained) {
            boolean interrupted = false;
            while (pendingCount.get() != 0) {
                try {
                    drained.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
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
        return pendingCount.get();
    }

    /** Copies that finished ahead of an earlier one and wait for it to commit first. */
    int outOfOrderCompletions() {
        return sequencer.outOfOrder();
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
