package io.blockwork.iostat.app;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code blockwork.iostat.*} settings.
 *
 * @param history how much per-second history each device keeps (its ring's length)
 * @param latencyTiming time every request for the latency histograms (two clock reads per
 *                      request); off keeps counts and requests in flight but no latencies
 */
@ConfigurationProperties("blockwork.iostat")
public record IostatProperties(@DefaultValue("10m") Duration history, @DefaultValue("true") boolean latencyTiming) {

    public IostatProperties {
        if (history.toSeconds() < 1 || history.toSeconds() > 86_400) {
            throw new IllegalArgumentException("blockwork.iostat.history must be 1s..24h, not " + history);
        }
    }

    public int seconds() {
        return (int) history.toSeconds();
    }
}
