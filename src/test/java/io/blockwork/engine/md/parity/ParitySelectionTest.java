package io.blockwork.engine.md.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.blockwork.engine.md.parity.ParitySelection.Measured;
import io.blockwork.engine.md.parity.ParitySelection.Selection;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: the start-up parity benchmark once printed xor 178 MB/s beside raid6 3,111 MB/s, the
 * candidates having been timed one after the other while the machine's speed changed. On a fake
 * machine (a clock that only work and pauses move, and a stretch when all work runs 20 times
 * slower), timing the candidates together in rounds reports every one at its real speed and
 * chooses right wherever the slow stretch falls, where timing them one after the other inverts.
 */
@Tag("unit")
class ParitySelectionTest {

    /** Real speeds, MB/s: XOR and P+Q of a scalar and a vector candidate. */
    private static final double SCALAR_XOR = 4000;
    private static final double SCALAR_PQ = 1200;
    private static final double VECTOR_XOR = 12000;
    private static final double VECTOR_PQ = 3000;
    private static final int SLOWDOWN = 20;

    /** A clock moved only by work and pauses; work in [slowFrom, slowUntil) gets 1/20 done per nanosecond. */
    private static final class FakeMachine implements BestOfRounds.Timer {
        private final long slowFrom;
        private final long slowUntil;
        private long now;

        FakeMachine(long slowFromMillis, long slowMillis) {
            slowFrom = slowFromMillis * 1_000_000;
            slowUntil = slowFrom + slowMillis * 1_000_000;
        }

        @Override
        public long nanos() {
            return now;
        }

        @Override
        public void pause(long nanos) {
            now += nanos;
        }

        BestOfRounds.Work work(double megabytesPerSecond) {
            return nanos -> {
                long start = now;
                now += nanos;
                long slow = Math.max(0, Math.min(now, slowUntil) - Math.max(start, slowFrom));
                return (long) (megabytesPerSecond * 1e-3 * ((nanos - slow) + slow / (double) SLOWDOWN));
            };
        }

        List<BestOfRounds.Work> candidates() {
            return List.of(work(SCALAR_XOR), work(SCALAR_PQ), work(VECTOR_XOR), work(VECTOR_PQ));
        }
    }

    private static final List<String> NAMES = List.of("scalar", "vector");

    private static List<Measured> together(FakeMachine m) {
        return ParitySelection.timedTogether(NAMES, m.candidates(), m);
    }

    /** What the benchmark did before: each candidate on its own until three slices bring no gain, one after the other. */
    private static List<Measured> oneAfterTheOther(FakeMachine m) {
        List<Double> r = new ArrayList<>();
        for (BestOfRounds.Work w : m.candidates()) {
            r.add(BestOfRounds.megabytesPerSecond(List.of(w), m, 10_000_000L, 40_000_000L, 10, 100)[0]);
        }
        return List.of(new Measured("scalar", r.get(0), r.get(1)), new Measured("vector", r.get(2), r.get(3)));
    }

    private static void measuredAtTheirRealSpeeds(List<Measured> figures, String why) {
        assertThat(figures.get(0).xorMBps()).as(why).isCloseTo(SCALAR_XOR, within(SCALAR_XOR * 0.01));
        assertThat(figures.get(0).raid6MBps()).as(why).isCloseTo(SCALAR_PQ, within(SCALAR_PQ * 0.01));
        assertThat(figures.get(1).xorMBps()).as(why).isCloseTo(VECTOR_XOR, within(VECTOR_XOR * 0.01));
        assertThat(figures.get(1).raid6MBps()).as(why).isCloseTo(VECTOR_PQ, within(VECTOR_PQ * 0.01));
        Selection s = ParitySelection.select(figures, true);
        assertThat(List.of(s.xorAlgorithm(), s.raid6Algorithm())).as(why).containsExactly("vector", "vector");
    }

    @Test
    void aSlowStretchWhereverItFallsCostsNoCandidateItsRealSpeed() {
        for (long from = 0; from <= 4000; from += 50) {
            measuredAtTheirRealSpeeds(together(new FakeMachine(from, 1000)), "1 s slow from " + from + " ms");
        }
        measuredAtTheirRealSpeeds(together(new FakeMachine(0, 0)), "never slow");
    }

    @Test
    void theSameStretchInvertedTheCandidatesTimedOneAfterTheOther() {
        // the slow 600 ms cover the vector XOR's whole turn: it reads 600 MB/s beside its P+Q's 3,000
        List<Measured> before = oneAfterTheOther(new FakeMachine(950, 600));
        assertThat(before.get(1).xorMBps()).isLessThan(before.get(1).raid6MBps() / 4);
        assertThat(ParitySelection.select(before, true).xorAlgorithm()).isEqualTo("scalar");
        measuredAtTheirRealSpeeds(together(new FakeMachine(950, 600)), "timed together");
    }

    @Test
    void theFirstOfEqualsWinsAndEachOperationIsChosenOnItsOwn() {
        Selection s = ParitySelection.select(List.of(new Measured("a", 100, 50), new Measured("b", 100, 60)), false);
        assertThat(List.of(s.xorAlgorithm(), s.raid6Algorithm())).containsExactly("a", "b");
        assertThat(s.raid6MBps()).isEqualTo(60);
        assertThat(s.measuring()).isFalse();
    }
}
