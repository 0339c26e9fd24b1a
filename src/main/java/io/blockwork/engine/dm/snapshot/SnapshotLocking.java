package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.Labelled;

/**
 * How a snapshot serialises its I/O paths (seed 004), chosen per snapshot at creation:
 * <ul>
 *   <li>{@code fine} ({@link FineLocking}, the default, Linux 5.2): the kernel's read-write lock
 *       for the snapshot's state (read in the I/O paths, write to invalidate or overflow) and its
 *       per-bucket locks of the complete and pending exception tables, here one lock per group of
 *       buckets that is also the state's read side, and a small allocation lock for COW chunks.
 *   <li>{@code global} ({@link GlobalLocking}, before 5.2): one lock per snapshot held across the
 *       whole map path, allocation included, and across completions.
 * </ul>
 * The kernel drops its locks around {@code alloc_pending_exception}, a mempool allocation that may
 * sleep, and checks everything again after; a Java allocation does not sleep, so both strategies
 * keep the chunk locked across it (issue 20: for {@code fine} that was two lock pairs and two
 * table lookups a write, with nothing to gain).
 *
 * <p>The snapshot's code is written once against this interface; each call names what it needs, and
 * a strategy decides what that costs. Lock order (docs/engine/locking.md): state, then complete
 * bucket, then pending bucket, then allocation.
 */
public interface SnapshotLocking {

    /** Builds a snapshot's locks once its table sizes are known. */
    @FunctionalInterface
    interface Factory {
        SnapshotLocking create(int completeBuckets, int pendingBuckets);
    }

    /** The strategy names of the API and the config: {@code fine}, {@code global}. */
    enum Kind implements Factory, Labelled {
        FINE,
        GLOBAL;

        @Override
        public SnapshotLocking create(int completeBuckets, int pendingBuckets) {
            return switch (this) {
                case FINE -> new FineLocking(completeBuckets, pendingBuckets);
                case GLOBAL -> new GlobalLocking();
            };
        }

        /** @throws IllegalArgumentException "unknown snapshot locking strategy 'x' (fine, global)" */
        public static Kind fromLabel(String label) {
            return Labelled.parse(Kind.class, label, "snapshot locking strategy");
        }
    }

    /** The strategy's name; null for a test's own strategy. */
    Kind kind();

    /** Enters an I/O path for one chunk: state shared, then its complete and pending buckets (the pending bucket is in the complete bucket's group, see {@link PendingTable}). */
    void lockChunk(int completeBucket);

    void unlockChunk(int completeBucket);

    /** Around the exception store's COW chunk allocation, with the chunk locked. */
    void lockAllocation();

    void unlockAllocation();

    /** Exclusive access to the snapshot's state: invalidate, overflow, handover, merge progress. */
    void lockState();

    void unlockState();
}
