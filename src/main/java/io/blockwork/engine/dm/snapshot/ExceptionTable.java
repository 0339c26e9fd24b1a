package io.blockwork.engine.dm.snapshot;

import java.util.Arrays;

/**
 * A snapshot's completed exceptions, old chunk to COW chunk: the kernel's complete
 * {@code dm_exception_table} after "dm snapshot: Make exception tables scalable". A hash table of
 * buckets, each holding <em>runs</em> sorted by old chunk; a run maps up to {@value #MAX_RUN}
 * consecutive old chunks onto consecutive COW chunks (what sequential copy-outs produce), so a
 * large sequential snapshot costs few entries. The hash drops the low {@value #RUN_SHIFT} bits,
 * so a run never leaves its bucket, and the locks ({@link SnapshotLocking}, {@link PendingTable})
 * are chosen by the same bucket index.
 *
 * <p>Design note (issue 20, fifth round). The kernel keeps a bucket as a linked list of runs,
 * walked in order. A bucket spans 256 chunks, and a table sized one bucket per chunk uses one
 * in 256; under random writes to 4 KiB chunks its list is one node per written chunk, up to 256
 * cache misses a lookup; a profile of the P benchmark at eight workers had 59 % of its samples in that walk,
 * under both strategies. Here a bucket is one {@code long[]}: its run count, then per run its
 * first old chunk and its COW chunk shifted left by {@value #RUN_SHIFT} with the run's length
 * minus one in the low bits (a COW chunk is a byte offset over a chunk of at least 512 bytes, so it
 * is below 2<sup>54</sup>). A lookup is a binary search over that array; an insert that starts a
 * new run shifts the runs after it (at most 4 KiB for each 256-chunk span sharing the bucket). The array doubles as it fills and halves
 * when a merge empties it to a quarter, and an empty bucket is dropped, so memory stays
 * proportional to the runs.
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

    /** The low bits of a run's packed COW field: the run's length minus one. */
    private static final long EXTRA_MASK = MAX_RUN - 1;
    /** Runs a new bucket has room for. */
    private static final int FIRST_CAPACITY = 2;

    /**
     * Per bucket, null while empty, else {@code [count, first_0, cow_0, first_1, cow_1, ...]}: run
     * {@code i} maps {@code first_i + k} to {@code (cow_i >>> RUN_SHIFT) + k} for
     * {@code 0 <= k <= (cow_i & EXTRA_MASK)}; runs sorted by first chunk and disjoint.
     */
    private final long[][] buckets;
    private final int mask;

    ExceptionTable(int bucketCount) {
        if (Integer.bitCount(bucketCount) != 1) {
            throw new IllegalArgumentException("bucket count must be a power of two: " + bucketCount);
        }
        this.buckets = new long[bucketCount][];
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
        long[] runs = buckets[bucket(chunk)];
        if (runs == null) {
            return -1;
        }
        int i = floor(runs, chunk);
        if (i < 0) {
            return -1;
        }
        long offset = chunk - first(runs, i);
        long cow = runs[cowAt(i)];
        return offset <= (cow & EXTRA_MASK) ? (cow >>> RUN_SHIFT) + offset : -1;
    }

    /**
     * Records {@code old -> new}, extending the run it continues (dm_insert_exception): the run
     * ending just before it, else the one starting just after it, if that one is not full.
     */
    void insert(long oldChunk, long newChunk) {
        int b = bucket(oldChunk);
        long[] runs = buckets[b];
        if (runs == null) {
            runs = new long[slots(FIRST_CAPACITY)];
            buckets[b] = runs;
        }
        int before = floor(runs, oldChunk);
        if (before >= 0) {
            long cow = runs[cowAt(before)];
            long extra = cow & EXTRA_MASK;
            if (extra + 1 < MAX_RUN && oldChunk == first(runs, before) + extra + 1
                    && newChunk == (cow >>> RUN_SHIFT) + extra + 1) {
                runs[cowAt(before)] = cow + 1;
                return;
            }
        }
        int after = before + 1;
        int count = count(runs);
        if (after < count) {
            long cow = runs[cowAt(after)];
            long extra = cow & EXTRA_MASK;
            if (extra + 1 < MAX_RUN && oldChunk == first(runs, after) - 1
                    && newChunk == (cow >>> RUN_SHIFT) - 1) {
                runs[firstAt(after)] = oldChunk;
                runs[cowAt(after)] = packed(newChunk, extra + 1);
                return;
            }
        }
        if (slots(count + 1) > runs.length) {
            runs = Arrays.copyOf(runs, slots(2 * count));
            buckets[b] = runs;
        }
        System.arraycopy(runs, firstAt(after), runs, firstAt(after + 1), 2 * (count - after));
        runs[firstAt(after)] = oldChunk;
        runs[cowAt(after)] = packed(newChunk, 0);
        runs[0] = count + 1;
    }

    /**
     * Forgets {@code chunk}, which must be the first or last chunk of its run (a merge removes
     * exceptions in the reverse of the order they were added); false if it is absent or inside
     * a run.
     */
    boolean remove(long chunk) {
        int b = bucket(chunk);
        long[] runs = buckets[b];
        if (runs == null) {
            return false;
        }
        int i = floor(runs, chunk);
        if (i < 0) {
            return false;
        }
        long first = first(runs, i);
        long cow = runs[cowAt(i)];
        long extra = cow & EXTRA_MASK;
        if (chunk - first > extra) {
            return false;
        }
        if (extra == 0) {
            removeRun(b, runs, i);
        } else if (chunk == first) {
            runs[firstAt(i)] = first + 1;
            runs[cowAt(i)] = packed((cow >>> RUN_SHIFT) + 1, extra - 1);
        } else if (chunk == first + extra) {
            runs[cowAt(i)] = cow - 1;
        } else {
            return false;
        }
        return true;
    }

    /** Runs in bucket {@code b}, for tests of the layout. */
    int runsIn(int b) {
        long[] runs = buckets[b];
        return runs == null ? 0 : count(runs);
    }

    private void removeRun(int b, long[] runs, int i) {
        int count = count(runs) - 1;
        if (count == 0) {
            buckets[b] = null;
            return;
        }
        System.arraycopy(runs, firstAt(i + 1), runs, firstAt(i), 2 * (count - i));
        runs[0] = count;
        int capacity = (runs.length - 1) / 2;
        if (capacity > FIRST_CAPACITY && count <= capacity / 4) {
            buckets[b] = Arrays.copyOf(runs, slots(capacity / 2));
        }
    }

    /** The index of the last run starting at or before {@code chunk}, or -1. */
    private static int floor(long[] runs, long chunk) {
        int low = 0;
        int high = count(runs) - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (first(runs, mid) <= chunk) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return high;
    }

    private static int count(long[] runs) {
        return (int) runs[0];
    }

    private static long first(long[] runs, int i) {
        return runs[firstAt(i)];
    }

    private static int firstAt(int i) {
        return 1 + 2 * i;
    }

    private static int cowAt(int i) {
        return 2 + 2 * i;
    }

    /** Array length for {@code runs} runs. */
    private static int slots(int runs) {
        return 1 + 2 * runs;
    }

    private static long packed(long newChunk, long extra) {
        return newChunk << RUN_SHIFT | extra;
    }
}
