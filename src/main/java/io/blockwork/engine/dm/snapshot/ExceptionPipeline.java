package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.IoStatus;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The path a pending exception takes from its COW chunk's allocation to the release of the writes
 * that waited on it (the kernel's {@code __insert_pending_exception}, {@code start_copy},
 * {@code copy_callback}, {@code complete_exception} and {@code pending_complete}): allocate, copy
 * (or let a whole-chunk snapshot write stand in for the copy), commit to the store, publish the
 * exception in the complete table, drain tracked reads, remove the pending exception, let the
 * waiters go.
 *
 * <p>It takes the {@link Snapshot}'s locks the way the snapshot's own paths do (a chunk's lock,
 * the allocation lock inside it) and never copies, submits or waits with one held; see
 * docs/engine/locking.md.
 */
final class ExceptionPipeline {

    private final Snapshot snapshot;
    private final ExceptionStore store;
    private final long chunkBytes;
    private final CowThrottle throttle;
    private final CommitSequencer sequencer = new CommitSequencer(this::completeException);
    /** A store commit's answer, waiting for a thread to publish it. */
    private record Committed(PendingException pe, boolean ok) {}
    /** Committed exceptions whose completion has not run yet; see {@link #completeException}. */
    private final ConcurrentLinkedQueue<Committed> committed = new ConcurrentLinkedQueue<>();
    /**
     * Whether copies complete through the {@link CommitSequencer}, in allocation order. A
     * persistent store needs it (its metadata areas must describe every chunk before the free
     * pointer); a transient one writes nothing, so under {@code fine} each thread that finishes a
     * copy completes it at once instead of waiting behind another thread's earlier one.
     * {@code global} keeps the kernel's order for every store, as before.
     */
    private final boolean commitsInOrder;
    /** Guarded by the allocation lock: the next exception's place in commit order. */
    private long startSequence;
    /** Pending exceptions not yet completed; the snapshot may close once it is zero. */
    private final AtomicInteger pendingCount = new AtomicInteger();
    /** Guards nothing: the wait/notify hand-off of {@link #awaitDrained}. */
    private final Object drained = new Object();

    ExceptionPipeline(Snapshot snapshot, CowThrottle throttle) {
        this.snapshot = snapshot;
        this.store = snapshot.store();
        this.chunkBytes = snapshot.chunkBytes();
        this.throttle = throttle;
        this.commitsInOrder = store.type().persistent() || snapshot.locks.kind() != SnapshotLocking.Kind.FINE;
    }

    /**
     * With the chunk locked: allocates {@code pe}'s COW chunk and inserts it; false if the store is
     * full. The allocation lock pairs the COW chunk with its place in commit order; where commits
     * are not ordered ({@code fine} on a transient store) the store's own atomic allocation is
     * enough, and the one lock every new exception took is gone from that path (issue 20: at eight
     * workers on two cores, a writer descheduled while holding it held up every other writer).
     */
    boolean insert(PendingException pe) {
        if (commitsInOrder) {
            snapshot.locks.lockAllocation();
            try {
                if (!allocateChunk(pe)) {
                    return false;
                }
                pe.sequence = startSequence++;
            } finally {
                snapshot.locks.unlockAllocation();
            }
        } else if (!allocateChunk(pe)) {
            return false;
        }
        snapshot.pending.insert(pe);
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

    /** Copies {@code pe}'s chunk from the origin to its COW chunk. */
    void startCopy(PendingException pe) {
        long from = pe.oldChunk * chunkBytes;
        long length = Math.min(chunkBytes, snapshot.origin().sizeBytes() - from);
        throttle.startCopy(chunkBytes);
        snapshot.copier.copyChunk(snapshot.origin(), from, snapshot.cow(), pe.newChunk * chunkBytes, length,
                ok -> copyDone(pe, ok));
    }

    /** A snapshot write covering {@code pe}'s whole chunk goes to the COW chunk in place of the copy. */
    void startFullWrite(PendingException pe, Bio bio) {
        throttle.startCopy(chunkBytes);
        snapshot.cow().submit(bio.derive(bio.op(), pe.newChunk * chunkBytes, bio.length(), 0, bio.flags(),
                b -> copyDone(pe, b.status().ok())));
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
            snapshot.invalidate(pe.copyError ? "copying chunk " + pe.oldChunk + " failed" : "the exception store failed");
            finishPending(pe, false);
            return;
        }
        int cb = snapshot.complete.bucket(pe.oldChunk);
        boolean inserted;
        boolean removed = false;
        snapshot.locks.lockChunk(cb);
        try {
            inserted = snapshot.valid();
            if (inserted) {
                // From here snapshot reads go to the COW; the pending exception still holds origin writes back.
                snapshot.complete.insert(pe.oldChunk, pe.newChunk);
                if (!snapshot.tracker.isTracked(pe.oldChunk)) {
                    snapshot.pending.remove(pe);
                    removed = true;
                }
            }
        } finally {
            snapshot.locks.unlockChunk(cb);
        }
        if (removed) {
            releasePending(pe, true);
        } else if (inserted) {
            snapshot.tracker.whenDrained(pe.oldChunk, () -> finishPending(pe, true));
        } else {
            finishPending(pe, false);
        }
    }

    private void finishPending(PendingException pe, boolean ok) {
        int cb = snapshot.complete.bucket(pe.oldChunk);
        snapshot.locks.lockChunk(cb);
        try {
            snapshot.pending.remove(pe);
        } finally {
            snapshot.locks.unlockChunk(cb);
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
                snapshot.deliver(b, ok ? new Route.ToCow(snapshot.cowOffset(pe.newChunk, b.offset())) : Route.IO_ERROR);
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

    /** Waits until every pending exception has completed (a closing snapshot's last step before its copier stops). */
    void awaitDrained() {
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

    int pendingExceptions() {
        return pendingCount.get();
    }

    /** Copies that finished ahead of an earlier one and wait for it to commit first. */
    int outOfOrderCompletions() {
        return sequencer.outOfOrder();
    }
}
