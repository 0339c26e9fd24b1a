package io.blockwork.shared.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Failed sign-ins per client address: after {@link #MAX_FAILURES} within {@link #WINDOW}, the
 * client's credentials are refused unread until the oldest of those failures is a window old.
 * Only that address waits; a correct password from another client still works. Successes do not
 * wipe the count (knowing the viewer's password must not buy more guesses at the admin's).
 *
 * <p>A failure counts once per distinct credentials: a dashboard or script still sending a
 * password that was changed fails on every call, a dozen at a time, but it guesses nothing, and
 * must not lock its user out once they type the new one. Credentials are told apart by a SHA-256
 * of the header, so no password is kept and none can be crafted to look like another.
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
    private record Failure(Instant at, String credentials) {}

    /** Client address → its recent failures, oldest first; in access order (guarded by this). */
    private final Map<String, Deque<Failure>> failures = new LinkedHashMap<>(16, 0.75f, true);

    public SignInThrottle() {
        this(Clock.systemUTC());
    }

    SignInThrottle(Clock clock) {
        this.clock = clock;
    }

    /** How long {@code client} must wait before its credentials are checked again; zero if it need not. */
    public synchronized Duration waitFor(String client) {
        Deque<Failure> times = failures.get(client);
        if (times == null) {
            return Duration.ZERO;
        }
        Instant now = clock.instant();
        expire(times, now);
        if (times.isEmpty()) {
            failures.remove(client);
            return Duration.ZERO;
        }
        return times.size() < MAX_FAILURES ? Duration.ZERO : Duration.between(now, times.peekFirst().at().plus(WINDOW));
    }

    /**
     * Counts a failed sign-in of {@code client} with {@code credentials} (the Authorization header);
     * the same credentials failing again within the window are not counted again.
     */
    public synchronized void failed(String client, String credentials) {
        Instant now = clock.instant();
        String fingerprint = fingerprint(credentials);
        Deque<Failure> times = failures.computeIfAbsent(client, c -> new ArrayDeque<>());
        expire(times, now);
        if (times.stream().anyMatch(f -> f.credentials().equals(fingerprint))) {
            return;
        }
        times.addLast(new Failure(now, fingerprint));
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

    private static void expire(Deque<Failure> times, Instant now) {
        while (!times.isEmpty() && !times.peekFirst().at().plus(WINDOW).isAfter(now)) {
            times.removeFirst();
        }
    }

    private static String fingerprint(String credentials) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(credentials.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
