package io.blockwork.shared.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.core.userdetails.UsernameNotFoundException;

/**
 * Design note: HTTP Basic sends the password with every request, and checking it against a BCrypt
 * hash costs milliseconds of CPU each time, which the dashboard (a dozen calls per refresh) and
 * scripts that poll would pay on every call. This provider remembers credentials it has verified:
 *
 * <ul>
 *   <li>keyed by an HMAC-SHA256 of user and password under a random key made at start-up, so the
 *       cache holds no password and nothing an attacker could test guesses against offline;</li>
 *   <li>each entry also remembers the user's stored password hash: when the password changes (or
 *       the user goes away) the stored hash no longer matches and the entry is dropped;</li>
 *   <li>bounded ({@link #MAX_ENTRIES}, cleared whole when full) and expiring ({@link #TTL});</li>
 *   <li>only successes are cached: every failed attempt still pays the full BCrypt check, so
 *       guessing stays as slow as before.</li>
 * </ul>
 */
public final class VerifiedCredentials implements AuthenticationProvider {

    static final int MAX_ENTRIES = 256;
    static final Duration TTL = Duration.ofMinutes(5);

    private record Key(byte[] mac) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(mac, k.mac);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(mac);
        }
    }

    /** @param factors what the check itself granted beside the user's roles (Spring Security's FACTOR_PASSWORD) */
    private record Entry(String storedHash, Instant expires, List<GrantedAuthority> factors) {}

    private final AuthenticationProvider verifier;
    private final UserDetailsService users;
    private final Clock clock;
    private final SecretKeySpec key;
    private final ConcurrentHashMap<Key, Entry> verified = new ConcurrentHashMap<>();

    /** @param verifier checks a password the slow way (a DaoAuthenticationProvider with BCrypt) */
    public VerifiedCredentials(AuthenticationProvider verifier, UserDetailsService users, Clock clock) {
        this.verifier = verifier;
        this.users = users;
        this.clock = clock;
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        this.key = new SecretKeySpec(secret, "HmacSHA256");
    }

    @Override
    public Authentication authenticate(Authentication request) throws AuthenticationException {
        String name = request.getName();
        Object credentials = request.getCredentials();
        if (name == null || !(credentials instanceof String password)) {
            return verifier.authenticate(request);
        }
        Key k = key(name, password);
        Entry e = verified.get(k);
        if (e != null) {
            UserDetails user = userOrNull(name);
            if (user != null && e.expires.isAfter(clock.instant()) && user.getPassword().equals(e.storedHash) && user.isEnabled()
                    && user.isAccountNonLocked() && user.isAccountNonExpired() && user.isCredentialsNonExpired()) {
                List<GrantedAuthority> authorities = new ArrayList<>(user.getAuthorities());
                authorities.addAll(e.factors);
                return UsernamePasswordAuthenticationToken.authenticated(user, null, authorities);
            }
            verified.remove(k, e);
        }
        // The stored hash as it is now, read before the check, so a change during it is not cached.
        UserDetails before = userOrNull(name);
        Authentication result = verifier.authenticate(request); // throws on a wrong password: never cached
        if (before != null && result != null && result.isAuthenticated()) {
            if (verified.size() >= MAX_ENTRIES) {
                verified.clear();
            }
            List<GrantedAuthority> factors = result.getAuthorities().stream()
                    .filter(a -> !before.getAuthorities().contains(a)).map(GrantedAuthority.class::cast).toList();
            verified.put(k, new Entry(before.getPassword(), clock.instant().plus(TTL), factors));
        }
        return result;
    }

    @Override
    public boolean supports(Class<?> authentication) {
        return UsernamePasswordAuthenticationToken.class.isAssignableFrom(authentication);
    }

    /** The user as stored now, or null for an unknown one (the verifier then fails as it always does). */
    private UserDetails userOrNull(String name) {
        try {
            return users.loadUserByUsername(name);
        } catch (UsernameNotFoundException e) {
            return null;
        }
    }

    int size() {
        return verified.size();
    }

    private Key key(String name, String password) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update(name.getBytes(StandardCharsets.UTF_8));
            mac.update((byte) 0);
            return new Key(mac.doFinal(password.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
