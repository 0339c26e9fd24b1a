package io.blockwork.shared.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

@Tag("unit")
class VerifiedCredentialsTest {

    private final BCryptPasswordEncoder encoder = new BCryptPasswordEncoder(4);
    private final InMemoryUserDetailsManager users = new InMemoryUserDetailsManager(
            User.withUsername("admin").password(encoder.encode("s3cret")).roles("ADMIN").build());
    private final AtomicInteger hashes = new AtomicInteger();
    private final MutableClock clock = new MutableClock();
    private final VerifiedCredentials cache = new VerifiedCredentials(counting(), users, clock);

    private AuthenticationProvider counting() {
        DaoAuthenticationProvider dao = new DaoAuthenticationProvider(users);
        dao.setPasswordEncoder(encoder);
        return new AuthenticationProvider() {
            @Override
            public Authentication authenticate(Authentication a) {
                hashes.incrementAndGet();
                return dao.authenticate(a);
            }

            @Override
            public boolean supports(Class<?> c) {
                return dao.supports(c);
            }
        };
    }

    private static UsernamePasswordAuthenticationToken basic(String user, String password) {
        return UsernamePasswordAuthenticationToken.unauthenticated(user, password);
    }

    @Test
    void aVerifiedPasswordIsHashedOnceThenRemembered() {
        Authentication first = cache.authenticate(basic("admin", "s3cret"));
        for (int i = 0; i < 5; i++) {
            Authentication a = cache.authenticate(basic("admin", "s3cret"));
            assertThat(a.isAuthenticated()).isTrue();
            // the same authorities as the full check: the role and what the check granted (FACTOR_PASSWORD)
            assertThat(a.getAuthorities()).extracting(GrantedAuthority::getAuthority)
                    .containsExactlyInAnyOrderElementsOf(first.getAuthorities().stream().map(GrantedAuthority::getAuthority).toList())
                    .contains("ROLE_ADMIN");
        }
        assertThat(hashes).hasValue(1);
    }

    @Test
    void everyFailedAttemptPaysTheFullCheckAndIsNeverRemembered() {
        cache.authenticate(basic("admin", "s3cret"));
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> cache.authenticate(basic("admin", "guess"))).isInstanceOf(BadCredentialsException.class);
            assertThatThrownBy(() -> cache.authenticate(basic("nobody", "s3cret"))).isInstanceOf(BadCredentialsException.class);
        }
        assertThat(hashes).hasValue(7);
        assertThat(cache.size()).isEqualTo(1);
    }

    @Test
    void aChangedPasswordDropsTheRememberedOne() {
        cache.authenticate(basic("admin", "s3cret"));
        users.updateUser(User.withUsername("admin").password(encoder.encode("new")).roles("ADMIN").build());
        assertThatThrownBy(() -> cache.authenticate(basic("admin", "s3cret"))).isInstanceOf(BadCredentialsException.class);
        assertThat(cache.authenticate(basic("admin", "new")).isAuthenticated()).isTrue();
    }

    @Test
    void aDeletedUserIsNotLetInFromTheCache() {
        cache.authenticate(basic("admin", "s3cret"));
        users.deleteUser("admin");
        assertThatThrownBy(() -> cache.authenticate(basic("admin", "s3cret"))).isInstanceOf(BadCredentialsException.class);
    }

    @Test
    void entriesExpire() {
        cache.authenticate(basic("admin", "s3cret"));
        clock.advance(VerifiedCredentials.TTL.plusSeconds(1));
        cache.authenticate(basic("admin", "s3cret"));
        assertThat(hashes).hasValue(2);
    }

    @Test
    void theCacheStaysBounded() {
        for (int i = 0; i < VerifiedCredentials.MAX_ENTRIES + 10; i++) {
            users.createUser(User.withUsername("u" + i).password(encoder.encode("p")).roles("VIEWER").build());
            cache.authenticate(basic("u" + i, "p"));
        }
        assertThat(cache.size()).isLessThanOrEqualTo(VerifiedCredentials.MAX_ENTRIES);
    }
}
