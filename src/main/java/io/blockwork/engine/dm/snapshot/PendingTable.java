package io.blockwork.engine.dm.snapshot;

/**
 * A snapshot's pending exceptions by old chunk: the kernel's pending {@code dm_exception_table}
 * (no runs, hash = chunk). Not thread-safe, like {@link ExceptionTable}: bucket {@code b} is used
 * only under its pending-bucket lock ({@code fine}) or the snapshot's lock ({@code global}).
 */
final class PendingTable {

    private final PendingException[] buckets;
    private final int mask;

    PendingTable(int bucketCount) {
        if (Integer.bitCount(bucketCount) != 1) {
            throw new IllegalArgumentException("bucket count must be a power of two: " + bucketCount);
        }
        this.buckets = new PendingException[bucketCount];
        this.mask = bucketCount - 1;
    }

    /** One eighth of the complete table's buckets, at least 64 (as the kernel sizes it). */
    static int bucketsFor(int completeBuckets) {
        return Math.max(ExceptionTable.MIN_BUCKETS, completeBuckets >> 3);
    }

    int bucketCount() {
        return buckets.length;
    }

    int bucket(long chunk) {
        return (int) chunk & mask;
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
