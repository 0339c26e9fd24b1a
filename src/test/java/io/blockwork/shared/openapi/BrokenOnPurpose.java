package io.blockwork.shared.openapi;

import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.annotation.Bean;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Two faults for {@link RestFuzzRejectsBreakageTest}, put in front of the service's controllers
 * (after its security filters, so they meet only authenticated requests): listing pools answers
 * 500, and a refused disk creation leaves a name behind in the device registry, as a service that
 * claims before it validates would. A plain class added as a source of that test's context, not
 * a component, so no other context picks it up.
 */
class BrokenOnPurpose {

    static final String LEFT_BEHIND = "fz-left-behind-";

    @Bean
    OncePerRequestFilter faultsOnPurpose(DeviceRegistry registry) {
        AtomicInteger leaks = new AtomicInteger();
        return new OncePerRequestFilter() {
            @Override
            protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                    throws ServletException, IOException {
                String call = request.getMethod() + " " + request.getRequestURI();
                if (call.equals("GET /api/v1/pools")) {
                    response.setStatus(500);
                    response.setContentType("application/problem+json");
                    response.getWriter().write("{\"title\":\"broken on purpose\",\"status\":500}");
                    return;
                }
                chain.doFilter(request, response);
                if (call.equals("POST /api/v1/disks") && response.getStatus() >= 400) {
                    registry.reserve(LEFT_BEHIND + leaks.incrementAndGet(), DeviceKind.DISK,
                            ObjectState.failed("left behind by a refused request"));
                }
            }
        };
    }
}
