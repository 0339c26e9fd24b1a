package io.blockwork.service.metrics;

import io.blockwork.service.device.DeviceRegistry;
import io.blockwork.service.device.RegisteredDevice;
import io.blockwork.service.dm.DmService;
import io.blockwork.service.dm.DmView;
import io.blockwork.service.event.EventHub;
import io.blockwork.service.event.ExportClientEvents;
import io.blockwork.service.export.ExportService;
import io.blockwork.service.export.ExportView;
import org.springframework.stereotype.Component;

/**
 * The metric sources of the services: every registered device, the mapped devices' strategies,
 * exports and their clients, the event hub.
 */
final class ServiceMetrics {

    private ServiceMetrics() {}

    @Component
    static class Devices implements MetricSource {
        private final DeviceRegistry registry;

        Devices(DeviceRegistry registry) {
            this.registry = registry;
        }

        @Override
        public void collect(MetricFamilies m) {
            for (RegisteredDevice e : registry.list()) {
                BlockworkMetrics.device(m, e);
            }
        }
    }

    @Component
    static class MappedDevices implements MetricSource {
        private final DmService dm;

        MappedDevices(DmService dm) {
            this.dm = dm;
        }

        @Override
        public void collect(MetricFamilies m) {
            for (DmView v : dm.list()) {
                m.info("blockwork_dm", "The mapped device's strategies, as labels", "device", v.name(),
                        "flush_strategy", v.strategies().emptyFlush().label(),
                        "batch_dispatch", v.strategies().batchDispatch().label(),
                        "snapshot_locking", v.strategies().snapshotLocking().label());
            }
        }
    }

    @Component
    static class Exports implements MetricSource {
        private final ExportService exports;
        private final ExportClientEvents gone;

        Exports(ExportService exports, ExportClientEvents gone) {
            this.exports = exports;
            this.gone = gone;
        }

        @Override
        public void collect(MetricFamilies m) {
            for (ExportView v : exports.list()) {
                long served = gone.servedByGoneClients(v.name());
                for (ExportView.Client c : v.clients()) {
                    served += c.requestsServed();
                }
                m.gauge("blockwork_export_clients", "NBD clients connected to the export", v.clients().size(),
                        "export", v.name(), "device", v.device());
                m.counter("blockwork_export_requests", "NBD requests answered on the export", served,
                        "export", v.name(), "device", v.device());
            }
        }
    }

    @Component
    static class Events implements MetricSource {
        private final EventHub hub;

        Events(EventHub hub) {
            this.hub = hub;
        }

        @Override
        public void collect(MetricFamilies m) {
            m.counter("blockwork_events_published", "Events published", hub.published());
            m.gauge("blockwork_event_consumers", "Event stream consumers connected", hub.consumers());
            m.counter("blockwork_event_consumers_dropped", "Event stream consumers cut off for falling behind",
                    hub.droppedConsumers());
        }
    }
}
