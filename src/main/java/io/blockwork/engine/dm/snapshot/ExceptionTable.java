package io.blockwork.engine.dm.snapshot;

/**
 * A snapshot's completed exceptions, old chunk to COW chunk: the kernel's complete
 * {@code dm_exception_table} after "dm snapshot: Make exception tables scalable". A hash table of
 * buckets, each a list of <em>runs</em> sorted by old chunk; a run maps up to {@value #MAX_RUN}
 * consecutive old chunks onto consecutive COW chunks (what sequential copy-outs produce), so a
 * large sequential snapshot costs few entries. The hash drops the low {@value #RUN_SHIFT} bits,
 * so a run never leaves its bucket.
 *
 * <p>Not thread-safe: every access to bucket {@code b} happens with the bucket's lock held (strategy
 * {@code fine}) or the snapshot's one lock (strategy {@code global}); see {@link SnapshotLocking}.
 */
final class ExceptionTable {

    static final int RUN_SHIFT = 8;
    static final int MAX_RUN = 1 << RUN_SHIFT;
    /** The kernel caps the bucket heads at 2 MiB: 262144 buckets. */
    static final int MAX_BUCKETS = 1 << 18;
    static final int MIN_BUCKETS = 64;

    /** {@code old .. old+extra} map to {@code new .. new+extra}. */
    private static final class Run {
        long oldChunk;
        long newChunk;
        int extra;
        Run next;

        Run(long oldChunk, long newChunk, Run next) {
            this.oldChunk = oldChunk;
            this.newChunk = newChunk;
            this.next = next;
        }
    }

    private final Run[] buckets;
    private final int mask;

    ExceptionTable(int bucketCount) {
        if (Integer.bitCount(bucketCount) != 1) {
            throw new IllegalArgumentException("bucket count must be a power of two: " + bucketCount);
        }
        this.buckets = new Run[bucketCount];
        this.mask = bucketCount - 1;
    }

    /** Buckets for {@code chunks} chunks: a power of two from {@value #MIN_BUCKETS} to {@value #MAX_BUCKETS}, rounded down. */
    static int bucketsFor(long chunks) {
        long n = Math.clamp(chunks, MIN_BUCKETS, MAX_BUCKETS);
        return Integer.highestOneBit((int) n);
    }

    int bucketCount() {
        return buckets.length;
    }

    /** The bucket {@code chunk} lives in. */
    int bucket(long chunk) {
        return (int) (chunk >>> RUN_SHIFT) & mask;
    }

    /** The COW chunk {@code chunk} was copied to, or -1. */
    long lookup(long chunk) {
        for (Run r = buckets[bucket(chunk)]; r != null; r = r.next) {
            if (chunk >= r.oldChunk && chunk <= r.oldChunk + r.extra) {
                return r.newChunk + (chunk - r.oldChunk);
            }
            if (chunk < r.oldChunk) {
                return -1;
            }
        }
        return -1;
    }

    /** Records {@code old -> new}, extending a run it continues (dm_insert_exception). */
    void insert(long oldChunk, long newChunk) {
        int b = bucket(oldChunk);
        Run prev = null;
        for (Run r = buckets[b]; r != null; prev = r, r = r.next) {
            if (r.extra + 1 < MAX_RUN) {
                if (oldChunk == r.oldChunk + r.extra + 1 && newChunk == r.newChunk + r.extra + 1) {
                    r.extra++;
                    return;
                }
                if (oldChunk == r.oldChunk - 1 && newChunk == r.newChunk - 1) {
                    r.oldChunk--;
                    r.newChunk--;
                    r.extra++;
                    return;
                }
            }
            if (oldChunk < r.oldChunk) {
                break;
            }
        }
        Run added = new Run(oldChunk, newChunk, prev == null ? buckets[b] : prev.next);
        if (prev == null) {
            buckets[b] = added;
        } else {
            prev.next = added;
        }
    }

    /**
     * Forgets {@code chunk}, which must be the first or last chunk of its run (a merge removes
     * exceptions in the reverse of the order they were added); false if it is absent or inside
     * a run.
     */
    boolean remove(long chunk) {
        int b = bucket(chunk);
        Run prev = null;
        for (Run r = buckets[b]; r != null; prev = r, r = r.next) {
            if (chunk >= r.oldChunk && chunk <= r.oldChunk + r.extra) {
                if (r.extra == 0) {
                    if (prev == null) {
                        buckets[b] = r.next;
                    } else {
                        prev.next = r.next;
                    }
                } else if (chunk == r.oldChunk) {
                    r.oldChunk++;
                    r.newChunk++;
                    r.extra--;
                } else if (chunk == r.oldChunk + r.extra) {
                    r.extra--;
                } else {
                    return false;
                }
                return true;
            }
        }
        return false;
    }

    /** Runs in bucket {@code b}, for tests of the layout. */
    int runsIn(int b) {
        int n = 0;
        for (Run r = buckets[b]; r != null; r = r.next) {
            n++;
        }
        return n;
    }
}
