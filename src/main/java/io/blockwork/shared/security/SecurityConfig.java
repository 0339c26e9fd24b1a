package io.blockwork.shared.security;

import io.blockwork.BlockworkProperties;
import java.time.Clock;
import java.util.Map;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.DelegatingPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.www.BasicAuthenticationFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Who may do what. Every {@code /api/**} call needs HTTP Basic credentials: {@code admin} may do
 * everything, {@code viewer} may read configuration and statistics (the event stream and
 * {@code /actuator/prometheus} included) but not change anything and not read device data.
 * Health, problem descriptions, the API document and the dashboard's static files are open. Stateless: no session, so no CSRF token is needed.
 * Failed sign-ins are throttled per client address ({@link SignInThrottle}).
 */
@Configuration
class SecurityConfig {

    /**
     * BCrypt work factor. Stateless Basic auth sends the password on every request; a verified one
     * is remembered by {@link VerifiedCredentials}, so the hash is paid once per user and password
     * (and on every failed attempt), not per call.
     */
    private static final int BCRYPT_COST = 8;

    @Bean
    SecurityFilterChain apiSecurity(HttpSecurity http, ProblemSecurityHandlers problems, UserDetailsService users,
                                    PasswordEncoder encoder, SignInThrottle throttle,
                                    @Qualifier("handlerExceptionResolver") HandlerExceptionResolver resolver) throws Exception {
        DaoAuthenticationProvider bcrypt = new DaoAuthenticationProvider(users);
        bcrypt.setPasswordEncoder(encoder);
        // verified credentials are remembered (safely, see VerifiedCredentials): a poll costs no BCrypt
        http.authenticationManager(new ProviderManager(new VerifiedCredentials(bcrypt, users, Clock.systemUTC())));
        // failed sign-ins are throttled per client before any password is checked
        http.addFilterBefore(new SignInThrottleFilter(throttle, resolver), BasicAuthenticationFilter.class);
        http.authorizeHttpRequests(a -> a
                        .requestMatchers("/actuator/health", "/actuator/health/**", "/problems", "/problems/**",
                                "/v3/api-docs", "/v3/api-docs/**", "/swagger-ui.html", "/swagger-ui/**", "/error")
                        .permitAll()
                        .requestMatchers(HttpMethod.GET, "/api/v1/devices/*/data").hasRole("ADMIN")
                        // a Prometheus scrape job may use the read-only user
                        .requestMatchers(HttpMethod.GET, "/actuator/prometheus").hasAnyRole("ADMIN", "VIEWER")
                        .requestMatchers(HttpMethod.GET, "/api/**").hasAnyRole("ADMIN", "VIEWER")
                        .requestMatchers("/api/**", "/actuator/**").hasRole("ADMIN")
                        // the dashboard: static files, which sign in through the API
                        .anyRequest().permitAll())
                .httpBasic(b -> b.authenticationEntryPoint(problems))
                .exceptionHandling(e -> e.authenticationEntryPoint(problems).accessDeniedHandler(problems))
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .requestCache(c -> c.disable())
                .csrf(c -> c.disable());
        return http.build();
    }

    @Bean
    PasswordEncoder passwordEncoder() {
        return new DelegatingPasswordEncoder("bcrypt", Map.of("bcrypt", new BCryptPasswordEncoder(BCRYPT_COST)));
    }

    @Bean
    UserDetailsService users(BlockworkProperties properties, PasswordEncoder encoder) {
        Map<String, String> passwords = UserPasswords.resolve(properties).passwords();
        return new InMemoryUserDetailsManager(
                User.withUsername("admin").password(encoder.encode(passwords.get("admin"))).roles("ADMIN").build(),
                User.withUsername("viewer").password(encoder.encode(passwords.get("viewer"))).roles("VIEWER").build());
    }
}
