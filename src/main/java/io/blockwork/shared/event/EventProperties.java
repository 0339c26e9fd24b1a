package io.blockwork.shared.event;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code blockwork.events.*} settings.
 *
 * @param ringSize events kept for {@code Last-Event-ID} resume and the JSON list
 * @param queueSize events one stream consumer may fall behind before it is dropped
 * @param heartbeat how long a stream stays silent before a comment line keeps proxies from
 *                  closing it
 */
@ConfigurationProperties("blockwork.events")
public record EventProperties(@DefaultValue("4096") int ringSize, @DefaultValue("1024") int queueSize,
                              @DefaultValue("15s") Duration heartbeat) {

    public EventProperties {
        if (ringSize < 1 || queueSize < 1) {
            throw new IllegalArgumentException("blockwork.events.ring-size and queue-size must be at least 1");
        }
        if (heartbeat.isNegative() || heartbeat.isZero()) {
            throw new IllegalArgumentException("blockwork.events.heartbeat must be positive");
        }
    }
}
