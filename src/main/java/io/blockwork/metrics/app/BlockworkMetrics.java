package io.blockwork.metrics.app;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoCounters;
import io.blockwork.engine.block.IoStats;
import io.blockwork.engine.block.LatencyHistogram;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.Table;
import io.blockwork.engine.dm.targets.logwrites.LogWritesTarget;
import io.blockwork.engine.md.ArrayState;
import io.blockwork.engine.md.JournalStatus;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdDetail;
import io.blockwork.engine.md.ParityStatus;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.event.Health;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.stereotype.Component;

/**
 * Blockwork's own metrics at {@code /actuator/prometheus}, beside Micrometer's JVM and HTTP ones:
 * collected at scrape time from what the engine and services already keep (the devices'
 * {@link IoStats}, arrays' {@code mdadm --detail}, pools, exports, the event hub). Nothing is
 * recorded per I/O for this, so scraping costs the data path nothing; a scrape sums each
 * device's counters and histogram buckets once.
 *
 * <p>Names follow Prometheus conventions: {@code blockwork_<object>_<what>[_unit]}, counters end
 * in {@code _total}, durations are {@code _seconds} histograms, objects are labels
 * ({@code device}, {@code kind}, {@code array}, {@code pool}, …).
 */
@Component
public class BlockworkMetrics implements MultiCollector {

    private static final double[] BOUNDS = bounds();
    private final List<MetricSource> sources;

    /** Registers itself with {@code registry}'s Prometheus registry; every scrape collects {@code sources}. */
    public BlockworkMetrics(PrometheusMeterRegistry registry, List<? extends MetricSource> sources) {
        this.sources = List.copyOf(sources);
        registry.getPrometheusRegistry().register(this);
    }

    @Override
    public MetricSnapshots collect() {
        MetricFamilies m = new MetricFamilies();
        for (MetricSource s : sources) {
            s.collect(m);
        }
        return m.snapshots();
    }

    /* ---- shared by the sources ---- */

    /** One device's counters, requests in flight and latency histograms. */
    static void device(MetricFamilies m, RegisteredDevice e) {
        String[] l = {"device", e.name(), "kind", e.kind().label()};
        BlockDevice d = e.device();
        Health health = Health.of(e);
        m.gauge("blockwork_device_up", "1 if the device is assembled and serving I/O, else 0", e.live() ? 1 : 0, l);
        m.gauge("blockwork_device_health", "1 for the device's health word (ok, degraded, recovering, failed, ...)", 1,
                "device", e.name(), "kind", e.kind().label(), "state", health.state());
        if (d == null) {
            return;
        }
        IoCounters c = d.counters();
        m.counter("blockwork_device_reads", "Read requests", c.reads(), l);
        m.counter("blockwork_device_writes", "Write requests (write-zeroes included)", c.writes(), l);
        m.counter("blockwork_device_flushes", "Flush requests (writes with PREFLUSH included)", c.flushes(), l);
        m.counter("blockwork_device_discards", "Discard requests", c.discards(), l);
        m.counter("blockwork_device_read_bytes", "Bytes read", c.readBytes(), l);
        m.counter("blockwork_device_written_bytes", "Bytes written", c.writtenBytes(), l);
        m.counter("blockwork_device_errors", "Requests that completed with an error", c.errors(), l);
        m.gauge("blockwork_device_in_flight_requests", "Requests submitted and not yet completed", c.inFlight(), l);
        m.gauge("blockwork_device_size_bytes", "The device's size", d.sizeBytes(), l);
        IoStats s = d.stats();
        latency(m, s.readLatency(), e, "read");
        latency(m, s.writeLatency(), e, "write");
        latency(m, s.flushLatency(), e, "flush");
        latency(m, s.discardLatency(), e, "discard");
        if (d instanceof Disk disk) {
            String[] dl = {"disk", e.name()};
            m.counter("blockwork_disk_media_flushes", "Cache flushes that reached the medium, after merging",
                    disk.mediaFlushes(), dl);
            m.counter("blockwork_disk_merges", "Requests merged into an earlier one while plugged", disk.merges(), dl);
            m.gauge("blockwork_disk_allocated_bytes", "Memory or file space the disk holds data in",
                    disk.allocatedBytes(), dl);
        }
        if (d instanceof MdArray a) {
            array(m, e.name(), a.detail());
        }
        if (d instanceof MappedDevice md) {
            mapped(m, e.name(), md);
        }
    }

    /** A mapped device's targets by type, and what a log-writes target has logged. */
    private static void mapped(MetricFamilies m, String name, MappedDevice d) {
        Table live = d.liveTable();
        if (live == null) {
            return;
        }
        Map<String, Integer> byType = new TreeMap<>();
        for (Table.Entry t : live.entries()) {
            byType.merge(t.type().name(), 1, Integer::sum);
            if (t.target() instanceof LogWritesTarget lw) {
                m.counter("blockwork_dm_log_writes_entries", "Entries a log-writes target has logged",
                        lw.loggedEntries(), "device", name, "log_device", lw.logDevice().name());
            }
        }
        byType.forEach((type, n) -> m.gauge("blockwork_dm_targets", "Targets of the mapped device's live table, by type",
                n, "device", name, "target", type));
    }

    private static void latency(MetricFamilies m, LatencyHistogram.Snapshot h, RegisteredDevice e, String op) {
        long[] counts = new long[BOUNDS.length];
        long below = 0;
        int first = LatencyHistogram.Snapshot.firstBoundExponent();
        for (int i = 0; i < BOUNDS.length - 1; i++) {
            long n = h.countAtOrBelow(first + i);
            counts[i] = n - below;
            below = n;
        }
        counts[BOUNDS.length - 1] = h.count() - below;
        m.histogram("blockwork_device_io_duration_seconds", "Completion latency of requests, submit to completion",
                BOUNDS, counts, h.sumNanos() / 1e9, "device", e.name(), "kind", e.kind().label(), "op", op);
    }

    /** Powers of two from 1.024 us to 68.7 s, in seconds, then +Inf. */
    private static double[] bounds() {
        int first = LatencyHistogram.Snapshot.firstBoundExponent();
        int last = LatencyHistogram.Snapshot.lastBoundExponent();
        double[] b = new double[last - first + 2];
        for (int e = first; e <= last; e++) {
            b[e - first] = (1L << e) / 1e9;
        }
        b[b.length - 1] = Double.POSITIVE_INFINITY;
        return b;
    }

    private static void array(MetricFamilies m, String name, MdDetail d) {
        String[] l = {"array", name};
        m.info("blockwork_array", "The array's level and strategies, as labels", "array", name,
                "level", d.level(), "flush_strategy", d.strategies().flush().label(),
                "barrier_strategy", d.strategies().barrier().label());
        for (ArrayState s : d.state()) {
            m.gauge("blockwork_array_state", "1 for each of the array's mdadm state words", 1, "array", name,
                    "state", s.label());
        }
        m.gauge("blockwork_array_raid_devices", "Slots of the array", d.raidDevices(), l);
        m.gauge("blockwork_array_active_devices", "Slots with an in-sync member", d.activeDevices(), l);
        m.gauge("blockwork_array_degraded_devices", "Slots without an in-sync member", d.raidDevices() - d.activeDevices(), l);
        m.gauge("blockwork_array_failed_devices", "Faulty members still attached", d.failedDevices(), l);
        m.gauge("blockwork_array_spare_devices", "Spares", d.spareDevices(), l);
        m.gauge("blockwork_array_sync_progress_ratio", "How far the running resync, recovery or check is, 0..1; "
                + "0 when none runs", d.sync().percent() / 100, "array", name, "action", d.sync().action().label());
        m.gauge("blockwork_array_sync_speed_bytes_per_second", "Speed of the running resync, recovery or check",
                d.sync().speedKiBps() * 1024.0, l);
        m.gauge("blockwork_array_mismatch_sectors", "md's mismatch_cnt after the last resync, check or repair",
                d.mismatchSectors(), l);
        ParityStatus p = d.parity();
        if (p != null) {
            m.gauge("blockwork_array_stripe_cache_size", "Stripe heads the cache may hold (md's stripe_cache_size)",
                    p.stripeCacheSize(), l);
            m.gauge("blockwork_array_stripe_cache_active", "Stripe heads in use (md's stripe_cache_active)",
                    p.stripeCacheActive(), l);
            String help = "Stripe writes by how parity was computed: read-modify-write, reconstruct-write, or a full "
                    + "stripe that read nothing";
            m.counter("blockwork_array_stripe_writes", help, p.rmwStripes(), "array", name, "path", "rmw");
            m.counter("blockwork_array_stripe_writes", help, p.rcwStripes(), "array", name, "path", "rcw");
            m.counter("blockwork_array_stripe_writes", help, p.fullStripeWrites(), "array", name, "path", "full_stripe");
            m.counter("blockwork_array_batched_writes", "Writes that joined an earlier one's parity update",
                    p.batchedWrites(), l);
            m.counter("blockwork_array_degraded_reads", "Reads rebuilt from the other members", p.degradedReads(), l);
        }
        JournalStatus j = d.journal();
        if (j != null) {
            String[] jl = {"array", name, "journal", j.device()};
            m.gauge("blockwork_array_journal_size_bytes", "The write journal's size", j.sizeBytes(), jl);
            m.gauge("blockwork_array_journal_used_bytes", "Journal space holding records not yet checkpointed",
                    j.usedBytes(), jl);
            m.counter("blockwork_array_journal_records", "Stripe records written to the journal", j.records(), jl);
            m.counter("blockwork_array_journal_checkpoints", "Journal checkpoints (members flushed, space reused)",
                    j.checkpoints(), jl);
            m.gauge("blockwork_array_journal_failed", "1 if the journal failed", j.failed() ? 1 : 0, jl);
            m.gauge("blockwork_array_journal_pinned", "1 if the journal keeps a failed stripe write's record for the next"
                    + " assembly (no checkpoint until then)", j.pinned() ? 1 : 0, jl);
        }
    }
}
