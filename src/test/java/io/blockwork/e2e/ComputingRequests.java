package io.blockwork.e2e;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * A test-only endpoint whose requests compute: {@code GET /test/compute} spins on its thread until
 * {@link #release} (or 30 s), as a request that parses a huge body would. A plain class with a
 * {@code @Bean} method (a router function, not a controller), so that no component scan finds it.
 */
public class ComputingRequests {

    static final AtomicInteger SPINNING = new AtomicInteger();
    private static volatile boolean released;

    static void reset() {
        released = false;
        SPINNING.set(0);
    }

    static void release() {
        released = true;
    }

    @Bean
    RouterFunction<ServerResponse> computingRoute() {
        return RouterFunctions.route().GET("/test/compute", request -> {
            SPINNING.incrementAndGet();
            long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            long spins = 0;
            while (!released && System.nanoTime() < end) {
                spins++; // never blocks, never yields: a virtual thread here would keep its carrier
            }
            SPINNING.decrementAndGet();
            return ServerResponse.ok().body(String.valueOf(spins));
        }).build();
    }
}
