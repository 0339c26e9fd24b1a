package io.blockwork.system.app;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * The {@link StallWatch}'s part of {@code /actuator/health} (component {@code stall}): DOWN, with
 * the reason, while work has waited for a thread longer than {@code blockwork.health.stall-after}.
 * Health is served on a request thread of its own, so it answers while the carriers are held; when
 * the request pool itself is full, a caller's health check waits in the queue like any request and
 * its timeout says the same thing.
 */
@Component
class StallHealthIndicator implements HealthIndicator {

    private final StallWatch watch;

    StallHealthIndicator(StallWatch watch) {
        this.watch = watch;
    }

    @Override
    public Health health() {
        StallWatch.Stalls s = watch.now();
        Duration bound = watch.stallAfter();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("carriersBusyMillis", s.carriersBusyFor().toMillis());
        details.put("carriers", Runtime.getRuntime().availableProcessors());
        s.requestPool().ifPresent(p -> details.put("requestThreads",
                Map.of("busy", p.busy(), "max", p.max(), "queued", p.queued())));
        details.put("stallAfterMillis", bound.toMillis());
        String reason = reason(s, bound);
        return reason == null ? Health.up().withDetails(details).build()
                : Health.down().withDetail("reason", reason).withDetails(details).build();
    }

    static String reason(StallWatch.Stalls s, Duration bound) {
        if (s.carriersBusyFor().compareTo(bound) >= 0) {
            return "virtual-thread carriers busy for " + seconds(s.carriersBusyFor())
                    + ": disk I/O, md daemons and thin copies are stalled (a thread dump shows what holds them)";
        }
        if (s.requestPoolSaturatedFor().compareTo(bound) >= 0) {
            StallWatch.PoolUse p = s.requestPool().orElseThrow();
            return "all " + p.max() + " request threads busy for " + seconds(s.requestPoolSaturatedFor()) + ", "
                    + p.queued() + " requests waiting";
        }
        return null;
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
