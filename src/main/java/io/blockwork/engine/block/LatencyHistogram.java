package io.blockwork.engine.block;

import java.util.concurrent.atomic.LongAdder;

/**
 * Completion latencies of one kind of request on one device, in fixed log-linear buckets: four
 * per power of two from 1.024 us to 68.7 s (so a bucket is at most 25% wide), one below and one
 * above. Memory is fixed whatever the I/O rate, recording is one bucket increment and one add
 * (striped {@link LongAdder}s, so completions on many threads do not contend), and readers take
 * {@link #snapshot}s: cumulative counts that a reader subtracts to get one interval's histogram.
 *
 * <p>The bucket bounds at every power of two ({@link Snapshot#countAtOrBelow}) serve as a
 * Prometheus histogram's {@code le} bounds; the finer ones give percentiles within 25%.
 */
public final class LatencyHistogram {

    /** Values below {@code 2^MIN_EXP} ns share bucket 0. */
    static final int MIN_EXP = 10;
    /** Values from {@code 2^MAX_EXP} ns up share the last bucket. */
    static final int MAX_EXP = 36;
    private static final int SUB_BITS = 2;
    private static final int SUBS = 1 << SUB_BITS;
    /** Bucket 0, four per octave, and the overflow bucket. */
    public static final int BUCKETS = 2 + (MAX_EXP - MIN_EXP) * SUBS;

    private final LongAdder[] counts = new LongAdder[BUCKETS];
    private final LongAdder sumNanos = new LongAdder();

    public LatencyHistogram() {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] = new LongAdder();
        }
    }

    /** Counts one request that took {@code nanos}. */
    public void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[bucket(v)].increment();
        sumNanos.add(v);
    }

    static int bucket(long nanos) {
        if (nanos < (1L << MIN_EXP)) {
            return 0;
        }
        int exp = 63 - Long.numberOfLeadingZeros(nanos);
        if (exp >= MAX_EXP) {
            return BUCKETS - 1;
        }
        int sub = (int) (nanos >>> (exp - SUB_BITS)) & (SUBS - 1);
        return 1 + (exp - MIN_EXP) * SUBS + sub;
    }

    /** The largest value (ns) bucket {@code i} holds; {@link Long#MAX_VALUE} for the last. */
    static long upperBound(int i) {
        if (i == 0) {
            return (1L << MIN_EXP) - 1;
        }
        if (i == BUCKETS - 1) {
            return Long.MAX_VALUE;
        }
        int exp = MIN_EXP + (i - 1) / SUBS;
        int sub = (i - 1) % SUBS;
        return ((long) (SUBS + sub + 1) << (exp - SUB_BITS)) - 1;
    }

    static long lowerBound(int i) {
        return i == 0 ? 0 : upperBound(i - 1) + 1;
    }

    /** The counts so far; cheap enough to take every second per device. */
    public Snapshot snapshot() {
        long[] c = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            c[i] = counts[i].sum();
        }
        return new Snapshot(c, sumNanos.sum());
    }

    /**
     * Counts per bucket and the sum of the values, either since the histogram began or, after
     * {@link #minus}, over an interval. Immutable by convention: nothing writes the array after
     * construction.
     */
    public static final class Snapshot {
        public static final Snapshot EMPTY = new Snapshot(new long[BUCKETS], 0);

        private final long[] counts;
        private final long sumNanos;
        private final long count;

        Snapshot(long[] counts, long sumNanos) {
            this.counts = counts;
            this.sumNanos = sumNanos;
            long n = 0;
            for (long c : counts) {
                n += c;
            }
            this.count = n;
        }

        public long count() {
            return count;
        }

        public long sumNanos() {
            return sumNanos;
        }

        public double meanNanos() {
            return count == 0 ? 0 : (double) sumNanos / count;
        }

        /** What was recorded after {@code earlier} was taken (counts only grow, so never negative). */
        public Snapshot minus(Snapshot earlier) {
            long[] d = new long[BUCKETS];
            for (int i = 0; i < BUCKETS; i++) {
                d[i] = Math.max(0, counts[i] - earlier.counts[i]);
            }
            return new Snapshot(d, Math.max(0, sumNanos - earlier.sumNanos));
        }

        /**
         * The value at quantile {@code q} (0..1), interpolated inside its bucket; 0 when empty.
         * Within 25% of the exact value for anything from 1 us to 68 s.
         */
        public long percentile(double q) {
            if (count == 0) {
                return 0;
            }
            double rank = Math.max(1, Math.ceil(q * count));
            long seen = 0;
            for (int i = 0; i < BUCKETS; i++) {
                if (counts[i] == 0) {
                    continue;
                }
                if (seen + counts[i] >= rank) {
                    long lo = lowerBound(i);
                    long hi = i == BUCKETS - 1 ? lo * 2 : upperBound(i);
                    double within = (rank - seen) / counts[i];
                    return lo + Math.round((hi - lo) * within);
                }
                seen += counts[i];
            }
            return upperBound(BUCKETS - 2);
        }

        /** Requests that took at most {@code 2^exp} ns; {@code exp} from 10 to 36 (Prometheus's {@code le}). */
        public long countAtOrBelow(int exp) {
            if (exp < MIN_EXP || exp > MAX_EXP) {
                throw new IllegalArgumentException("exponent " + exp + " outside " + MIN_EXP + ".." + MAX_EXP);
            }
            // bucket bounds at powers of two: every bucket below octave exp's first
            int end = 1 + (exp - MIN_EXP) * SUBS;
            long n = 0;
            for (int i = 0; i < end; i++) {
                n += counts[i];
            }
            return n;
        }

        /** The exponents {@link #countAtOrBelow} takes. */
        public static int firstBoundExponent() {
            return MIN_EXP;
        }

        public static int lastBoundExponent() {
            return MAX_EXP;
        }
    }
}
