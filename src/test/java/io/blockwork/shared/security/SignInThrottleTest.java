package io.blockwork.shared.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The per-client count of failed sign-ins, on a clock the test moves. */
@Tag("unit")
class SignInThrottleTest {

    private final MutableClock clock = new MutableClock();
    private final SignInThrottle throttle = new SignInThrottle(clock);

    @Test
    void theFifthFailureWithinAMinuteHoldsThatClientBackUntilTheFirstIsAMinuteOld() {
        for (int i = 0; i < SignInThrottle.MAX_FAILURES - 1; i++) {
            throttle.failed("10.0.0.1", "Basic guess-" + i);
            clock.advance(Duration.ofSeconds(10));
            assertThat(throttle.waitFor("10.0.0.1")).isZero();
        }
        throttle.failed("10.0.0.1", "Basic guess-4"); // the fifth, 40 s after the first
        assertThat(throttle.waitFor("10.0.0.1")).isEqualTo(Duration.ofSeconds(20));
        assertThat(throttle.waitFor("10.0.0.2")).as("another client").isZero();
        clock.advance(Duration.ofSeconds(19));
        assertThat(throttle.waitFor("10.0.0.1")).isEqualTo(Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));
        assertThat(throttle.waitFor("10.0.0.1")).as("the first failure left the window").isZero();
        throttle.failed("10.0.0.1", "Basic guess-5");
        assertThat(throttle.waitFor("10.0.0.1")).as("five again within the minute").isPositive();
    }

    @Test
    void failuresSpreadOverMoreThanAMinuteNeverHoldBack() {
        for (int i = 0; i < 20; i++) {
            throttle.failed("10.0.0.3", "Basic guess-" + i);
            clock.advance(Duration.ofSeconds(13));
            assertThat(throttle.waitFor("10.0.0.3")).isZero();
        }
    }

    @Test
    void theSameWrongCredentialsRepeatedCountOnce() {
        for (int i = 0; i < 20; i++) {
            throttle.failed("10.0.0.4", "Basic stale-password");
        }
        assertThat(throttle.waitFor("10.0.0.4")).as("a stale password guesses nothing").isZero();
        for (int i = 0; i < SignInThrottle.MAX_FAILURES - 1; i++) {
            throttle.failed("10.0.0.4", "Basic guess-" + i);
        }
        assertThat(throttle.waitFor("10.0.0.4")).as("four new guesses make five").isPositive();
    }

    @Test
    void theClientsRememberedAreBounded() {
        for (int i = 0; i <= SignInThrottle.MAX_CLIENTS; i++) {
            throttle.failed("client-" + i, "Basic x");
        }
        for (int i = 0; i < SignInThrottle.MAX_FAILURES; i++) {
            throttle.failed("client-last", "Basic guess-" + i);
        }
        assertThat(throttle.waitFor("client-last")).isPositive();
        assertThat(throttle.clients()).isLessThanOrEqualTo(SignInThrottle.MAX_CLIENTS);
    }
}
