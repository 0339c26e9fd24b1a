package io.blockwork.engine.dm.snapshot;

/**
 * How a snapshot serialises its I/O paths (seed 004), chosen per snapshot at creation:
 * <ul>
 *   <li>{@code fine} ({@link FineLocking}, the default, Linux 5.2): a read-write lock for the
 *       snapshot's state (read in the I/O paths, write to invalidate or overflow), a lock per
 *       bucket of the complete and pending exception tables (always complete before pending), and
 *       a small allocation lock for COW chunks; the bucket locks are dropped while a pending
 *       exception is allocated, and everything is checked again after.
 *   <li>{@code global} ({@link GlobalLocking}, before 5.2): one lock per snapshot held across the
 *       whole map path, allocation included, and across completions.
 * </ul>
 * The snapshot's code is written once against this interface; each call names what it needs, and
 * a strategy decides what that costs. Lock order (docs/engine/locking.md): state, then complete
 * bucket, then pending bucket, then allocation.
 */
public interface SnapshotLocking {

    /** The strategy names of the API. */
    enum Kind {
        FINE("fine"),
        GLOBAL("global");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        public static Kind fromLabel(String label) {
            for (Kind k : values()) {
                if (k.label.equals(label)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unknown snapshot locking strategy '" + label + "' (fine, global)");
        }
    }

    static SnapshotLocking create(Kind kind, int completeBuckets, int pendingBuckets) {
        return switch (kind) {
            case FINE -> new FineLocking(completeBuckets, pendingBuckets);
            case GLOBAL -> new GlobalLocking();
        };
    }

    Kind kind();

    /** Enters an I/O path for one chunk: state shared, then its complete and pending buckets. */
    void lockChunk(int completeBucket, int pendingBucket);

    void unlockChunk(int completeBucket, int pendingBucket);

    /** Before allocating with the chunk locked: {@code fine} drops the buckets, {@code global} keeps its lock. */
    void unlockForAllocation(int completeBucket, int pendingBucket);

    /** After allocating: takes back what {@link #unlockForAllocation} dropped; the caller checks again. */
    void relockAfterAllocation(int completeBucket, int pendingBucket);

    /** Around the exception store's COW chunk allocation, with the chunk locked. */
    void lockAllocation();

    void unlockAllocation();

    /** Exclusive access to the snapshot's state: invalidate, overflow, handover, merge progress. */
    void lockState();

    void unlockState();
}
