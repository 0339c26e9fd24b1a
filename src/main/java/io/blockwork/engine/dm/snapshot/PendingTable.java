package io.blockwork.engine.dm.snapshot;

/**
 * A snapshot's pending exceptions by old chunk: the kernel's pending {@code dm_exception_table}
 * (no runs). Not thread-safe, like {@link ExceptionTable}: bucket {@code b} is used only under its
 * group's lock ({@code fine}) or the snapshot's lock ({@code global}).
 *
 * <p>The buckets come in {@code G} groups, {@code G = min(}{@value #GROUPS}{@code , buckets / }{@value #RUN_SPREAD}{@code )},
 * one per class {@code b mod G} of the complete table's buckets: a chunk's pending bucket is its
 * complete bucket's class (high bits) followed by its own low bits. So every pending bucket holds
 * chunks of one class only, and {@code fine} guards a complete bucket class and the pending
 * buckets of the same chunks with one lock (issue 20, third round: one lock a pass where the
 * kernel takes two bit locks). The kernel hashes a pending chunk by its low bits alone; here a
 * run of 256 chunks spreads over the {@value #RUN_SPREAD} buckets of its group, so a sequential
 * stream in flight makes longer chains than there (at most what the COW throttle lets be in
 * flight over eight buckets a run).
 */
final class PendingTable {

    /** Groups of buckets, at most; a power of two. */
    static final int GROUPS = 4096;
    /** Buckets a group has at least, over which a run's chunks spread. */
    static final int RUN_SPREAD = 8;

    private final PendingException[] buckets;
    private final int groupMask;
    private final int lowBits;
    private final long lowMask;

    /** {@code groups}: a power of two, at most {@code bucketCount}; see {@link #groupsFor}. */
    PendingTable(int bucketCount, int groups) {
        if (Integer.bitCount(bucketCount) != 1 || Integer.bitCount(groups) != 1 || groups > bucketCount) {
            throw new IllegalArgumentException("bucket count " + bucketCount + " and groups " + groups
                    + " must be powers of two, groups at most buckets");
        }
        this.buckets = new PendingException[bucketCount];
        this.groupMask = groups - 1;
        this.lowBits = Integer.numberOfTrailingZeros(bucketCount / groups);
        this.lowMask = (1L << lowBits) - 1;
    }

    /** One eighth of the complete table's buckets, at least 64 (as the kernel sizes it). */
    static int bucketsFor(int completeBuckets) {
        return Math.max(ExceptionTable.MIN_BUCKETS, completeBuckets >> 3);
    }

    /**
     * The groups for a complete table of {@code completeBuckets} and a pending table of
     * {@link #bucketsFor} that: complete bucket {@code b} is in group {@code b mod groups}.
     */
    static int groupsFor(int completeBuckets) {
        return Math.min(GROUPS, bucketsFor(completeBuckets) / RUN_SPREAD);
    }

    /** The group of a chunk's complete bucket, which is the group of its pending bucket. */
    static int group(int completeBucket, int groups) {
        return completeBucket & (groups - 1);
    }

    int bucketCount() {
        return buckets.length;
    }

    int bucket(long chunk) {
        long group = (chunk >>> ExceptionTable.RUN_SHIFT) & groupMask;
        return (int) (group << lowBits | chunk & lowMask);
    }

    PendingException lookup(long chunk) {
        for (PendingException p = buckets[bucket(chunk)]; p != null; p = p.next) {
            if (p.oldChunk == chunk) {
                return p;
            }
        }
        return null;
    }

    void insert(PendingException pe) {
        int b = bucket(pe.oldChunk);
        pe.next = buckets[b];
        buckets[b] = pe;
    }

    void remove(PendingException pe) {
        int b = bucket(pe.oldChunk);
        PendingException prev = null;
        for (PendingException p = buckets[b]; p != null; prev = p, p = p.next) {
            if (p == pe) {
                if (prev == null) {
                    buckets[b] = p.next;
                } else {
                    prev.next = p.next;
                }
                p.next = null;
                return;
            }
        }
        throw new IllegalStateException(pe + " is not in the pending table");
    }
}
