package io.blockwork.engine.dm.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The COW throttle queues writes over its cap and runs them when copies bring the count back under it. */
@Tag("unit")
class CowThrottleTest {

    private static final long CHUNK = 4096;

    @Test
    void aWriteOverTheCapWaitsUntilACopyEndsBelowIt() {
        CowThrottle t = new CowThrottle(CHUNK);
        List<String> ran = new ArrayList<>();
        assertThat(t.admit(() -> ran.add("early"))).as("nothing copying").isTrue();
        t.startCopy(CHUNK);
        t.startCopy(CHUNK);
        t.startCopy(CHUNK);
        assertThat(t.admit(() -> ran.add("a"))).isFalse();
        assertThat(t.admit(() -> ran.add("b"))).isFalse();
        assertThat(t.waiting()).isEqualTo(2);
        t.endCopy(CHUNK);
        assertThat(ran).as("still over the cap").isEmpty();
        t.endCopy(CHUNK);
        assertThat(ran).as("back at the cap: oldest first").containsExactly("a", "b");
        assertThat(t.waiting()).isZero();
        assertThat(t.inProgressBytes()).isEqualTo(CHUNK);
    }

    @Test
    void writesQueuedAfterAWakeUpAreWokenByTheNextCopyToEnd() {
        CowThrottle t = new CowThrottle(CHUNK);
        List<String> ran = new ArrayList<>();
        for (String round : List.of("first", "second", "third")) {
            t.startCopy(CHUNK);
            t.startCopy(CHUNK);
            assertThat(t.admit(() -> ran.add(round))).isFalse();
            t.endCopy(CHUNK);
            assertThat(ran).last().isEqualTo(round);
            t.endCopy(CHUNK);
        }
        assertThat(ran).containsExactly("first", "second", "third");
        assertThat(t.waiting()).isZero();
    }

    @Test
    void aCopyEndingWithNoWriteWaitingWakesNothingAndAWriteArrivingUnderTheCapGoesOn() {
        CowThrottle t = new CowThrottle(CHUNK);
        t.startCopy(CHUNK);
        t.endCopy(CHUNK);
        List<String> ran = new ArrayList<>();
        assertThat(t.admit(() -> ran.add("x"))).isTrue();
        assertThat(ran).as("admitted writes are not queued").isEmpty();
        assertThat(t.waiting()).isZero();
    }
}
