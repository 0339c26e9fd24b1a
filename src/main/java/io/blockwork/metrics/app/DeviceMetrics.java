package io.blockwork.metrics.app;

import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.RegisteredDevice;
import org.springframework.stereotype.Component;

/**
 * Every registered device's metrics: its counters, latency histograms and health, and disks' and
 * arrays' own figures. Public so the telemetry overhead benchmark scrapes exactly what the
 * service does.
 */
@Component
public class DeviceMetrics implements MetricSource {
    private final DeviceRegistry registry;

    public DeviceMetrics(DeviceRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void collect(MetricFamilies m) {
        for (RegisteredDevice e : registry.list()) {
            BlockworkMetrics.device(m, e);
        }
    }
}
