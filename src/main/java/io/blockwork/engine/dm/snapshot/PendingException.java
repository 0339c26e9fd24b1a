package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.Bio;
import java.util.ArrayList;
import java.util.List;

/**
 * An exception being made: its COW chunk is allocated and the copy (or a whole-chunk snapshot
 * write) is on its way; bios that need the chunk wait here (the kernel's
 * {@code dm_snap_pending_exception}). It sits in the snapshot's {@link PendingTable} from creation
 * until its completion has put the exception into the complete table and released the waiters.
 *
 * <p>Fields marked "bucket" are guarded by the chunk's bucket-group lock (strategy {@code fine})
 * or the snapshot's lock ({@code global}).
 */
final class PendingException {

    final long oldChunk;
    /** Set when the exception is inserted, before anyone else can see it. */
    long newChunk;
    /** Preparation order: commits run in this order. */
    long sequence;
    /** Bucket: the next pending exception in the same bucket. */
    PendingException next;
    /** Bucket: a copy (or the full-chunk write) was started. */
    boolean started;
    /** Bucket: snapshot writes waiting for the chunk, in arrival order. */
    List<Bio> snapshotBios;
    /** Bucket: origin writes (and merges) to run again once the exception is complete. */
    List<Runnable> originWaiters;
    /** A whole-chunk snapshot write that stands in for the copy; ended when the exception completes. */
    Bio fullBio;
    /** The copy or the full write failed; written before the completion is sequenced. */
    volatile boolean copyError;

    PendingException(long oldChunk) {
        this.oldChunk = oldChunk;
    }

    /** Bucket. */
    void addSnapshotBio(Bio bio) {
        if (snapshotBios == null) {
            snapshotBios = new ArrayList<>(2);
        }
        snapshotBios.add(bio);
    }

    /** Bucket. */
    void addOriginWaiter(Runnable retry) {
        if (originWaiters == null) {
            originWaiters = new ArrayList<>(2);
        }
        originWaiters.add(retry);
    }

    @Override
    public String toString() {
        return "pending[" + oldChunk + "->" + newChunk + " #" + sequence + "]";
    }
}
