package io.blockwork.engine.dm.snapshot;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.IoStatus;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * A snapshot being merged back into its origin (the kernel's {@code snapshot-merge}): the
 * merged view's I/O ({@link #map}) and the merge itself, a chain of asynchronous steps.
 *
 * <p>The merged view is the origin with the snapshot's exceptions laid over it: a chunk with an
 * exception is read and written on the COW (writes tracked, so a merge step can wait for them),
 * any other chunk on the origin (writes through {@link Origin#write}, so other snapshots of the
 * origin still copy out first). As in the kernel, this path takes the snapshot's state
 * exclusively; merging is not the fast path.
 *
 * <p>One step merges the newest run of consecutive exceptions:
 * <ol>
 *   <li>ask the store for the run ({@link ExceptionStore#prepareMerge}); none left: done;
 *   <li>make the origin's other snapshots copy the run's chunks out (waiting for their pending
 *       copies, then asking again);
 *   <li>mark the run as merging, so new writes to it wait, and wait for tracked writes to drain;
 *   <li>copy the chunks from the COW to the origin, flush the origin, and commit the merge in the
 *       store (metadata written with FUA);
 *   <li>drop the run from the complete table, release the writes that waited (to the origin,
 *       which now holds the data), and take the next step.
 * </ol>
 * A suspend stops the chain between steps ({@link #stop} waits for the step in flight); resume
 * starts it again. Any failure stops it for good, with the state {@code Merge failed}.
 */
final class Merge {

    private static final System.Logger LOG = System.getLogger(Merge.class.getName());

    private final Snapshot s;
    private final Origin origin;

    /** Written with the snapshot's state exclusive, read with a chunk locked: the run being merged; {@code count == 0} when none. */
    private long first;
    private long count;
    /**
     * Writes to the merging run, oldest first: the list is swapped with the snapshot's state
     * exclusive, and added to with the chunk's lock and {@link #queuedLock} held.
     */
    private List<Bio> queued = new ArrayList<>();
    /** Leaf lock: guards adding to {@link #queued} (two chunks' locks may both be held at once under {@code fine}). */
    private final Object queuedLock = new Object();

    /** A step is in flight. */
    @GuardedBy("this")
    private boolean running;
    @GuardedBy("this")
    private boolean done;
    private volatile boolean stopRequested;

    Merge(Snapshot snapshot, Origin origin) {
        this.s = snapshot;
        this.origin = origin;
    }

    /* ---- The merged view ---- */

    /**
     * The kernel's {@code snapshot_merge_map} takes the snapshot's lock exclusively; here the
     * chunk's lock is enough (the state's read side and the chunk's buckets: the run's bounds
     * change only with the state exclusive, and the queue has its own leaf lock), which is the
     * same one lock under {@code global} and spares {@code fine} taking every bucket group for
     * every bio.
     */
    Route map(Bio bio) {
        long chunk = bio.offset() >>> s.chunkShift();
        boolean write = bio.op().isWrite();
        int cb = s.complete.bucket(chunk);
        s.locks.lockChunk(cb);
        try {
            if (s.valid()) {
                long e = s.complete.lookup(chunk);
                if (e >= 0) {
                    if (write && chunk >= first && chunk < first + count) {
                        synchronized (queuedLock) {
                            queued.add(bio);
                        }
                        return Route.HELD;
                    }
                    if (write) {
                        s.tracker.track(chunk);
                        bio.context(Snapshot.TRACKED);
                    }
                    return new Route.ToCow(s.cowOffset(e, bio.offset()));
                }
            }
        } finally {
            s.locks.unlockChunk(cb);
        }
        // No exception (or an invalid snapshot): the origin is the merged view here.
        return write ? origin.write(bio, false) : new Route.ToOrigin(bio.offset());
    }

    /** Writes waiting for the run being merged. */
    int queuedWrites() {
        s.locks.lockState();
        try {
            return queued.size();
        } finally {
            s.locks.unlockState();
        }
    }

    SnapshotStatus.MergeState state() {
        synchronized (this) {
            if (s.mergeFailed) {
                return SnapshotStatus.MergeState.FAILED;
            }
            return done ? SnapshotStatus.MergeState.DONE
                    : running ? SnapshotStatus.MergeState.RUNNING : SnapshotStatus.MergeState.STOPPED;
        }
    }

    /* ---- The driver ---- */

    void start() {
        synchronized (this) {
            if (running || done || s.mergeFailed) {
                return;
            }
            running = true;
            stopRequested = false;
        }
        next();
    }

    /** Stops after the step in flight, and waits for it. */
    void stop() {
        synchronized (this) {
            stopRequested = true;
            boolean interrupted = false;
            while (running) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void finish(boolean complete) {
        synchronized (this) {
            running = false;
            done |= complete;
            notifyAll();
        }
    }

    private void next() {
        if (stopRequested) {
            finish(false);
            return;
        }
        if (!s.valid()) {
            LOG.log(Level.ERROR, "Snapshot is invalid: can''t merge ({0})", s);
            finish(false);
            return;
        }
        ExceptionStore.MergeRun run = s.store().prepareMerge();
        if (run.count() == 0) {
            LOG.log(Level.INFO, "Merge of {0} complete", s);
            finish(true);
            return;
        }
        reserve(run);
    }

    /** Other snapshots copy the run's chunks out first; then the run is marked and its tracked writes drain. */
    private void reserve(ExceptionStore.MergeRun run) {
        long from = run.firstOld() * s.chunkBytes();
        if (origin.triggerExceptions(from, from + run.count() * s.chunkBytes(), () -> reserve(run))) {
            return;
        }
        s.locks.lockState();
        try {
            first = run.firstOld();
            count = run.count();
        } finally {
            s.locks.unlockState();
        }
        drain(run, 0);
    }

    private void drain(ExceptionStore.MergeRun run, int from) {
        for (int i = from; i < run.count(); i++) {
            long chunk = run.firstOld() + i;
            if (s.tracker.isTracked(chunk)) {
                int next = i + 1;
                s.tracker.whenDrained(chunk, () -> drain(run, next));
                return;
            }
        }
        copy(run);
    }

    private void copy(ExceptionStore.MergeRun run) {
        long to = run.firstOld() * s.chunkBytes();
        long length = Math.min(run.count() * s.chunkBytes(), s.origin().sizeBytes() - to);
        s.copier.copy(s.cow(), run.firstNew() * s.chunkBytes(), s.origin(), to, length, ok -> copied(run, ok));
    }

    private void copied(ExceptionStore.MergeRun run, boolean ok) {
        if (!ok) {
            fail("I/O error copying chunks back to the origin: shutting down merge");
            return;
        }
        s.origin().submit(Bio.flush(f -> {
            if (!f.status().ok()) {
                fail("Flush after merge failed: shutting down merge");
                return;
            }
            s.store().commitMerge(run.count(), st -> {
                if (st.ok()) {
                    merged(run);
                } else {
                    fail("Write error in exception store: shutting down merge");
                }
            });
        }));
    }

    private void merged(ExceptionStore.MergeRun run) {
        List<Bio> release;
        boolean consistent = true;
        s.locks.lockState();
        try {
            for (long c = run.lastOld(); c >= run.firstOld(); c--) {
                consistent &= s.complete.remove(c);
            }
            release = endRun();
        } finally {
            s.locks.unlockState();
        }
        for (Bio b : release) {
            s.deliver(b, new Route.ToOrigin(b.offset()));
        }
        if (!consistent) {
            fail("Corruption detected: a merged exception was not in memory");
            return;
        }
        next();
    }

    /** With the state exclusive: no run is being merged any more; the bios it held back, to release. */
    private List<Bio> endRun() {
        first = 0;
        count = 0;
        List<Bio> release = queued;
        queued = new ArrayList<>();
        return release;
    }

    private void fail(String why) {
        LOG.log(Level.ERROR, "{0}: {1}", s, why);
        List<Bio> release;
        s.locks.lockState();
        try {
            s.mergeFailed = true;
            release = endRun();
        } finally {
            s.locks.unlockState();
        }
        release.forEach(b -> b.endio(IoStatus.IO_ERROR));
        finish(false);
    }
}
