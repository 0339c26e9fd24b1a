package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.Bio;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The barriers' sleeping and waking, step by step on real threads: a raiser that finds I/O
 * pending sleeps until the last of it exits; a bio that meets a raised barrier is parked and
 * resumed (already admitted) by the lower that drops it; and raising again waits for that resumed
 * bio. The broken twin whose exit never wakes the raiser leaves it asleep for good.
 */
@Tag("unit")
class MdBarrierWakeupTest {

    private static final Duration LONG = Duration.ofSeconds(30);

    static Stream<Arguments> barriers() {
        return Stream.of(
                Arguments.of("optimistic", (Function<Consumer<Bio>, MdBarrierLincheckTest.Gate>) r -> MdBarrierLincheckTest.Gate.of(new OptimisticBarrier(r))),
                Arguments.of("locked", (Function<Consumer<Bio>, MdBarrierLincheckTest.Gate>) r -> MdBarrierLincheckTest.Gate.of(new LockedBarrier(r))),
                Arguments.of("buckets", (Function<Consumer<Bio>, MdBarrierLincheckTest.Gate>) r -> MdBarrierLincheckTest.Gate.of(new BucketBarrier(r))));
    }

    private static Thread raiseOn(MdBarrierLincheckTest.Gate gate) {
        return Thread.ofPlatform().name("raiser").start(() -> gate.raise(0));
    }

    private static void awaitAsleep(Thread t) {
        await().atMost(LONG).until(() -> t.getState() == Thread.State.WAITING);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("barriers")
    void theLastExitWakesTheRaiserAndParkedBiosAreResumedAdmitted(String name,
            Function<Consumer<Bio>, MdBarrierLincheckTest.Gate> factory) throws Exception {
        List<Bio> resumed = new ArrayList<>();
        MdBarrierLincheckTest.Gate gate = factory.apply(resumed::add);
        Bio first = Bio.flush(b -> { });
        Bio second = Bio.flush(b -> { });
        assertThat(gate.enter(first)).isTrue();
        assertThat(gate.enter(second)).isTrue();

        Thread raiser = raiseOn(gate);
        awaitAsleep(raiser);
        gate.exit(first);
        awaitAsleep(raiser);
        gate.exit(second);
        raiser.join(LONG);
        assertThat(raiser.isAlive()).as("raiser woken by the last exit").isFalse();

        // Raised: newcomers are parked, and the lower hands them back already admitted.
        Bio late = Bio.flush(b -> { });
        assertThat(gate.enter(late)).isFalse();
        assertThat(resumed).isEmpty();
        gate.lower(0);
        assertThat(resumed).containsExactly(late);

        // The resumed bio counts as pending: the next raise waits for it.
        Thread again = raiseOn(gate);
        awaitAsleep(again);
        gate.exit(late);
        again.join(LONG);
        assertThat(again.isAlive()).isFalse();
        gate.lower(0);
        assertThat(gate.enter(Bio.flush(b -> { }))).isTrue();
    }

    @Test
    void anExitThatForgetsTheSleepingRaiserLeavesItAsleep() throws Exception {
        BrokenOptimisticBarrier gate = new BrokenOptimisticBarrier(b -> { }, true, false);
        Bio io = Bio.flush(b -> { });
        assertThat(gate.enter(io)).isTrue();
        Thread raiser = raiseOn(gate);
        awaitAsleep(raiser);
        gate.exit(io);
        // Nothing will ever unpark it: it stays asleep although nothing is pending.
        await().during(Duration.ofMillis(500)).atMost(LONG).until(() -> raiser.getState() == Thread.State.WAITING);
        LockSupport.unpark(raiser);
        raiser.join(LONG);
        assertThat(raiser.isAlive()).isFalse();
    }

    @Test
    void bucketsHoldBackOnlyTheRaisedUnit() {
        BucketBarrier gate = new BucketBarrier(b -> { });
        gate.raise(0);
        long otherUnit = 1L << BucketBarrier.UNIT_SHIFT;
        assertThat(BucketBarrier.bucket(otherUnit)).isNotEqualTo(BucketBarrier.bucket(0));
        assertThat(gate.enter(write(otherUnit))).isTrue();
        assertThat(gate.enter(write((1L << BucketBarrier.UNIT_SHIFT) - 4096))).as("same unit").isFalse();
        gate.lower(0);
        assertThat(gate.pending()).isEqualTo(2);
    }

    private static Bio write(long offset) {
        return Bio.of(io.blockwork.engine.block.BioOp.DISCARD, offset, 4096, io.blockwork.engine.block.BioFlags.NONE, null, b -> { });
    }
}
