package io.blockwork.shared.openapi;

import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.DelegatingPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;

/**
 * BCrypt at its lowest work factor (2^4 rounds instead of the service's 2^8), for the REST
 * fuzzer: stateless Basic auth hashes the password on every request, and at ten thousand requests
 * a run that hash was most of the CPU the fuzzer used. The credentials still go through the same
 * filter chain and BCrypt; what authentication decides is {@link AuthMatrixTest}'s subject.
 *
 * <p>A plain class added as a source of the fuzzer's context ({@code RunningService.start(dir,
 * CheapPasswordHashing.class)}), not a component, so no other context picks it up.
 */
class CheapPasswordHashing {

    @Bean
    @Primary
    PasswordEncoder cheapPasswordEncoder() {
        return new DelegatingPasswordEncoder("bcrypt", Map.of("bcrypt", new BCryptPasswordEncoder(4)));
    }
}
