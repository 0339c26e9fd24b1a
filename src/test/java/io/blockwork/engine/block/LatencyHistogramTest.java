package io.blockwork.engine.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class LatencyHistogramTest {

    @Test
    void bucketsTileTheRangeWithoutGapsOrOverlaps() {
        for (int i = 1; i < LatencyHistogram.BUCKETS; i++) {
            assertThat(LatencyHistogram.lowerBound(i)).isEqualTo(LatencyHistogram.upperBound(i - 1) + 1);
            assertThat(LatencyHistogram.bucket(LatencyHistogram.lowerBound(i))).isEqualTo(i);
            if (i < LatencyHistogram.BUCKETS - 1) {
                assertThat(LatencyHistogram.bucket(LatencyHistogram.upperBound(i))).isEqualTo(i);
                // at most 25% wide
                assertThat((double) LatencyHistogram.upperBound(i) / LatencyHistogram.lowerBound(i)).isLessThanOrEqualTo(1.25);
            }
        }
        assertThat(LatencyHistogram.bucket(0)).isZero();
        assertThat(LatencyHistogram.bucket(Long.MAX_VALUE)).isEqualTo(LatencyHistogram.BUCKETS - 1);
    }

    @Test
    void percentilesAreWithinABucketsWidthOfTheExactValue() {
        LatencyHistogram h = new LatencyHistogram();
        SplittableRandom rng = new SplittableRandom(7);
        long[] values = new long[100_000];
        for (int i = 0; i < values.length; i++) {
            values[i] = 10_000 + rng.nextLong(990_000); // 10 us .. 1 ms, uniform
            h.record(values[i]);
        }
        java.util.Arrays.sort(values);
        LatencyHistogram.Snapshot s = h.snapshot();
        assertThat(s.count()).isEqualTo(values.length);
        for (double q : new double[] {0.5, 0.9, 0.99}) {
            long exact = values[(int) (q * values.length) - 1];
            assertThat((double) s.percentile(q)).isCloseTo(exact, within(exact * 0.25));
        }
        assertThat(s.meanNanos()).isCloseTo(505_000, within(10_000.0));
    }

    @Test
    void anIntervalIsTheDifferenceOfTwoSnapshots() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 10; i++) {
            h.record(5_000);
        }
        LatencyHistogram.Snapshot first = h.snapshot();
        for (int i = 0; i < 4; i++) {
            h.record(3_000_000);
        }
        LatencyHistogram.Snapshot interval = h.snapshot().minus(first);
        assertThat(interval.count()).isEqualTo(4);
        assertThat(interval.percentile(0.5)).isBetween(2_400_000L, 3_750_000L);
        assertThat(interval.sumNanos()).isEqualTo(12_000_000);
    }

    @Test
    void powerOfTwoBoundsCountWhatLiesBelowThem() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(500);          // below 2^10
        h.record(1_500);        // below 2^11
        h.record(1_000_000);    // below 2^20
        LatencyHistogram.Snapshot s = h.snapshot();
        assertThat(s.countAtOrBelow(10)).isEqualTo(1);
        assertThat(s.countAtOrBelow(11)).isEqualTo(2);
        assertThat(s.countAtOrBelow(19)).isEqualTo(2);
        assertThat(s.countAtOrBelow(20)).isEqualTo(3);
        assertThat(s.countAtOrBelow(36)).isEqualTo(3);
    }
}
