package io.blockwork.iostat.app;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoCounters;
import io.blockwork.engine.block.IoStats;
import io.blockwork.engine.block.LatencyHistogram;
import java.util.ArrayList;
import java.util.List;

/**
 * One device's per-second history: a fixed ring of {@link IostatSample}s (its memory depends on
 * the ring's length, never on the I/O rate) and the cumulative figures of the last tick, which
 * the next tick subtracts.
 *
 * <p>Threading: the sampler thread calls {@link #tick}; API threads read. Both under the
 * object's monitor, held for a copy of at most the ring.
 */
final class DeviceHistory {

    private final BlockDevice device;
    private final IostatSample[] ring;
    private int next;
    private int size;
    /** Sampler thread only. */
    private Cumulative last;
    /** The second the last tick was named for; sampler thread only. */
    private long lastSecond = Long.MIN_VALUE;

    DeviceHistory(BlockDevice device, int seconds) {
        this.device = device;
        this.ring = new IostatSample[seconds];
    }

    /** What a device had counted at one moment. */
    private record Cumulative(long nanos, IoCounters counters, LatencyHistogram.Snapshot read,
                              LatencyHistogram.Snapshot write, LatencyHistogram.Snapshot flush,
                              LatencyHistogram.Snapshot discard) {
        static Cumulative of(BlockDevice d, long nanos) {
            IoStats s = d.stats();
            return new Cumulative(nanos, d.counters(), s.readLatency(), s.writeLatency(), s.flushLatency(),
                    s.discardLatency());
        }
    }

    /**
     * Takes the second that ended at {@code epochSecond} (the first tick only starts the count). A
     * tick named for a second already taken is skipped: the sampler's fixed rate runs an overdue tick
     * at once after a late one, which was named for the same second; the next tick's sample then
     * covers the skipped one's time, so no I/O goes uncounted and the times only go up.
     */
    void tick(long epochSecond, long nowNanos) {
        if (epochSecond <= lastSecond) {
            return;
        }
        lastSecond = epochSecond;
        Cumulative now = Cumulative.of(device, nowNanos);
        Cumulative before = last;
        last = now;
        if (before == null) {
            return;
        }
        double secs = Math.max(1, now.nanos() - before.nanos()) / 1e9;
        IoCounters a = before.counters();
        IoCounters b = now.counters();
        LatencyHistogram.Snapshot r = now.read().minus(before.read());
        LatencyHistogram.Snapshot w = now.write().minus(before.write());
        LatencyHistogram.Snapshot f = now.flush().minus(before.flush());
        LatencyHistogram.Snapshot d = now.discard().minus(before.discard());
        double busyNanos = r.sumNanos() + w.sumNanos() + f.sumNanos() + d.sumNanos();
        IostatSample s = new IostatSample(epochSecond,
                (b.reads() - a.reads()) / secs, (b.writes() - a.writes()) / secs,
                (b.flushes() - a.flushes()) / secs, (b.discards() - a.discards()) / secs,
                (b.readBytes() - a.readBytes()) / secs, (b.writtenBytes() - a.writtenBytes()) / secs,
                r.meanNanos() / 1000, r.percentile(0.5) / 1000.0, r.percentile(0.99) / 1000.0,
                w.meanNanos() / 1000, w.percentile(0.5) / 1000.0, w.percentile(0.99) / 1000.0,
                f.percentile(0.5) / 1000.0, f.percentile(0.99) / 1000.0,
                b.inFlight(), busyNanos / (secs * 1e9), (b.errors() - a.errors()) / secs);
        synchronized (this) {
            ring[next] = s;
            next = (next + 1) % ring.length;
            size = Math.min(size + 1, ring.length);
        }
    }

    /** The last {@code seconds} samples, oldest first. */
    synchronized List<IostatSample> last(int seconds) {
        int n = Math.min(seconds, size);
        List<IostatSample> out = new ArrayList<>(n);
        for (int i = n; i > 0; i--) {
            out.add(ring[Math.floorMod(next - i, ring.length)]);
        }
        return out;
    }

    /** The newest sample, or null before the second tick. */
    synchronized IostatSample latest() {
        return size == 0 ? null : ring[Math.floorMod(next - 1, ring.length)];
    }

    BlockDevice device() {
        return device;
    }
}
