package io.blockwork.disk.app;

import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.disk.LatencyModel;

/**
 * A partial change to a running disk; null members stay as they are. Latency and queue depth are
 * persisted; the fault switches are error injection for tests and demos and are not.
 */
public record DiskUpdate(Long readNanos, Long writeNanos, Long flushNanos, Long jitterNanos,
                         Integer queueDepth, Boolean failReads, Boolean failWrites, Boolean failFlushes) {

    LatencyModel latencyFrom(LatencyModel now) {
        return new LatencyModel(or(readNanos, now.readNanos()), or(writeNanos, now.writeNanos()),
                or(flushNanos, now.flushNanos()), or(jitterNanos, now.jitterNanos()));
    }

    DiskFaults faultsFrom(DiskFaults now) {
        return new DiskFaults(or(failReads, now.failReads()), or(failWrites, now.failWrites()),
                or(failFlushes, now.failFlushes()));
    }

    private static <T> T or(T value, T current) {
        return value != null ? value : current;
    }
}
