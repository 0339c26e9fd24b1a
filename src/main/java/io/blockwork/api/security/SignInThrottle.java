package io.blockwork.api.security;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Failed sign-ins per client address: after {@link #MAX_FAILURES} within {@link #WINDOW}, the
 * client's credentials are refused unread until the oldest of those failures is a window old.
 * Only that address waits; a correct password from another client still works. Successes do not
 * wipe the count (knowing the viewer's password must not buy more guesses at the admin's).
 *
 * <p>Bounded: at most {@link #MAX_CLIENTS} addresses are remembered; when full, the one whose last
 * failure is oldest is forgotten, so a flood of spoofed sources cannot grow the map.
 */
@Component
public final class SignInThrottle {

    static final int MAX_FAILURES = 5;
    static final Duration WINDOW = Duration.ofMinutes(1);
    static final int MAX_CLIENTS = 10_000;

    private final Clock clock;
    /** Client address → times of its recent failures, oldest first; in access order (guarded by this). */
    private final Map<String, Deque<Instant>> failures = new LinkedHashMap<>(16, 0.75f, true);

    public SignInThrottle() {
        this(Clock.systemUTC());
    }

    SignInThrottle(Clock clock) {
        this.clock = clock;
    }

    /** How long {@code client} must wait before its credentials are checked again; zero if it need not. */
    public synchronized Duration waitFor(String client) {
        Deque<Instant> times = failures.get(client);
        if (times == null) {
            return Duration.ZERO;
        }
        Instant now = clock.instant();
        expire(times, now);
        if (times.isEmpty()) {
            failures.remove(client);
            return Duration.ZERO;
        }
        return times.size() < MAX_FAILURES ? Duration.ZERO : Duration.between(now, times.peekFirst().plus(WINDOW));
    }

    /** Counts a failed sign-in of {@code client}. */
    public synchronized void failed(String client) {
        Instant now = clock.instant();
        Deque<Instant> times = failures.computeIfAbsent(client, c -> new ArrayDeque<>());
        expire(times, now);
        times.addLast(now);
        while (times.size() > MAX_FAILURES) {
            times.removeFirst();
        }
        if (failures.size() > MAX_CLIENTS) {
            var eldest = failures.entrySet().iterator();
            eldest.next();
            eldest.remove();
        }
    }

    /** Forgets every client's failures (as a restart does). */
    public synchronized void clear() {
        failures.clear();
    }

    synchronized int clients() {
        return failures.size();
    }

    private static void expire(Deque<Instant> times, Instant now) {
        while (!times.isEmpty() && !times.peekFirst().plus(WINDOW).isAfter(now)) {
            times.removeFirst();
        }
    }
}
