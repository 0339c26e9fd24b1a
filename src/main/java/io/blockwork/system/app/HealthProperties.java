package io.blockwork.system.app;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code blockwork.health.*} settings.
 *
 * @param stallAfter how long work may wait for a thread (a virtual thread for a carrier, a request
 *                   for a request thread) before health says DOWN
 * @param probeEvery how often the watch looks
 */
@ConfigurationProperties("blockwork.health")
public record HealthProperties(@DefaultValue("5s") Duration stallAfter, @DefaultValue("250ms") Duration probeEvery) {

    public HealthProperties {
        if (stallAfter.isNegative() || stallAfter.isZero() || probeEvery.isNegative() || probeEvery.isZero()) {
            throw new IllegalArgumentException("blockwork.health.stall-after and probe-every must be positive");
        }
        if (probeEvery.compareTo(stallAfter) > 0) {
            throw new IllegalArgumentException("blockwork.health.probe-every must not be longer than stall-after");
        }
    }
}
