package io.blockwork.shared.security;

import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import org.springframework.http.HttpHeaders;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Sits before HTTP Basic authentication: a request that carries credentials from a client
 * {@link SignInThrottle} holds back gets 429 with Retry-After, and its password is not checked
 * (no BCrypt spent on it); a 401 answer to one that carried credentials counts as a failure.
 * Requests without credentials (or with an empty Basic header) are neither refused nor counted:
 * they are not sign-in attempts.
 * The dashboard signs in through the same API calls, so it is throttled the same way.
 */
final class SignInThrottleFilter extends OncePerRequestFilter {

    private final SignInThrottle throttle;
    private final HandlerExceptionResolver problems;

    SignInThrottleFilter(SignInThrottle throttle, HandlerExceptionResolver problems) {
        this.throttle = throttle;
        this.problems = problems;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String credentials = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (credentials == null || credentials.isBlank() || credentials.strip().equalsIgnoreCase("Basic")) {
            chain.doFilter(request, response); // no credentials: not a sign-in attempt
            return;
        }
        String client = request.getRemoteAddr();
        Duration wait = throttle.waitFor(client);
        if (!wait.isZero()) {
            long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
            response.setHeader(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
            problems.resolveException(request, response, null, new ProblemException(Problem.TOO_MANY_SIGN_INS,
                    SignInThrottle.MAX_FAILURES + " failed sign-ins from " + client + " within "
                            + SignInThrottle.WINDOW.toSeconds() + " s; try again in " + seconds + " s")
                    .with("retryAfterSeconds", seconds));
            return;
        }
        chain.doFilter(request, response);
        if (response.getStatus() == HttpServletResponse.SC_UNAUTHORIZED) {
            throttle.failed(client, credentials);
        }
    }
}
