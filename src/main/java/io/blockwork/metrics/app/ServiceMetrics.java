package io.blockwork.metrics.app;

import io.blockwork.dm.app.DmService;
import io.blockwork.dm.app.DmView;
import io.blockwork.shared.event.EventHub;
import io.blockwork.shared.event.ExportClientEvents;
import io.blockwork.export.app.ExportService;
import io.blockwork.export.app.ExportView;
import io.blockwork.pool.app.PoolService;
import io.blockwork.pool.app.PoolView;
import io.blockwork.pool.app.ThinPoolUsage;
import io.blockwork.pool.snapshot.app.SnapshotService;
import io.blockwork.pool.snapshot.app.SnapshotView;
import io.blockwork.pool.thin.app.ThinPoolService;
import org.springframework.stereotype.Component;

/**
 * The metric sources of the services beside {@link DeviceMetrics}: the mapped devices' strategies,
 * pools with their snapshots' fill, thin pools' data and metadata use, exports and their clients, the event hub.
 */
final class ServiceMetrics {

    private ServiceMetrics() {}

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
    static class Pools implements MetricSource {
        private final PoolService pools;
        private final SnapshotService snapshots;

        Pools(PoolService pools, SnapshotService snapshots) {
            this.pools = pools;
            this.snapshots = snapshots;
        }

        @Override
        public void collect(MetricFamilies m) {
            for (PoolView p : pools.list()) {
                m.gauge("blockwork_pool_extents", "The pool's extents", p.totalExtents(), "pool", p.name());
                m.gauge("blockwork_pool_free_extents", "Extents no volume or snapshot owns", p.freeExtents(), "pool", p.name());
                m.gauge("blockwork_pool_used_extents", "Extents volumes and snapshots own", p.usedExtents(), "pool", p.name());
                m.gauge("blockwork_pool_extent_size_bytes", "Bytes per extent", p.extentSizeBytes(), "pool", p.name());
                for (String volume : p.volumes()) {
                    for (SnapshotView s : snapshots.list(p.name(), volume)) {
                        if (s.fillPercent() != null) {
                            m.gauge("blockwork_snapshot_fill_ratio", "How full the snapshot's COW space is, 0..1 "
                                    + "(metadata included, as lvm counts it)", s.fillPercent() / 100, "pool", p.name(),
                                    "snapshot", s.name(), "volume", volume);
                        }
                        if (s.merge() != null) {
                            m.gauge("blockwork_snapshot_merge_progress_ratio", "How far a merge (rollback) is, 0..1",
                                    s.merge().percent() / 100, "pool", p.name(), "snapshot", s.name(), "volume", volume);
                        }
                    }
                }
            }
        }
    }

    /** Thin pools as lvs shows them: data and metadata used of what they have, and what their volumes promise. */
    @Component
    static class ThinPools implements MetricSource {
        private final ThinPoolService thinPools;

        ThinPools(ThinPoolService thinPools) {
            this.thinPools = thinPools;
        }

        @Override
        public void collect(MetricFamilies m) {
            for (PoolView p : thinPools.list()) {
                ThinPoolUsage u = p.thin();
                if (u == null) {
                    continue;
                }
                m.gauge("blockwork_thin_pool_data_bytes", "The thin pool's data space", u.dataBytes(), "pool", p.name());
                m.gauge("blockwork_thin_pool_data_used_bytes", "Data space holding blocks of thin volumes and snapshots "
                        + "(lvs Data%)", u.usedDataBytes(), "pool", p.name());
                m.gauge("blockwork_thin_pool_metadata_bytes", "The thin pool's metadata space", u.metadataBytes(),
                        "pool", p.name());
                m.gauge("blockwork_thin_pool_metadata_used_bytes", "Metadata space in use (lvs Meta%)",
                        u.usedMetadataBytes(), "pool", p.name());
                m.gauge("blockwork_thin_pool_virtual_bytes", "The virtual sizes of the pool's thin volumes and snapshots "
                        + "added up (above the data space: overprovisioned)", u.virtualBytes(), "pool", p.name());
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
