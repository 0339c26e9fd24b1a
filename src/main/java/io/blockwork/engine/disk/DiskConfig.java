package io.blockwork.engine.disk;

import io.blockwork.engine.block.FlushMerging;
import java.util.Objects;

/**
 * How a disk behaves, apart from its medium.
 *
 * @param logicalBlockSize 512 or 4096
 * @param cache volatile cache or not
 * @param latency service times added to requests
 * @param queueDepth most requests in service at once; 0 for no limit
 * @param flushMerging the flush strategy for a writeback cache
 */
public record DiskConfig(int logicalBlockSize, CacheMode cache, LatencyModel latency, int queueDepth,
                         FlushMerging flushMerging) {

    public static final DiskConfig DEFAULT =
            new DiskConfig(512, CacheMode.WRITETHROUGH, LatencyModel.NONE, 0, FlushMerging.MERGED);

    public DiskConfig {
        if (logicalBlockSize != 512 && logicalBlockSize != 4096) {
            throw new IllegalArgumentException("logical block size must be 512 or 4096: " + logicalBlockSize);
        }
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(flushMerging, "flushMerging");
        if (queueDepth < 0) {
            throw new IllegalArgumentException("queue depth must not be negative: " + queueDepth);
        }
    }

    public static DiskConfig writeback() {
        return DEFAULT.withCache(CacheMode.WRITEBACK);
    }

    public DiskConfig withCache(CacheMode c) {
        return new DiskConfig(logicalBlockSize, c, latency, queueDepth, flushMerging);
    }

    public DiskConfig withLatency(LatencyModel l) {
        return new DiskConfig(logicalBlockSize, cache, l, queueDepth, flushMerging);
    }

    public DiskConfig withQueueDepth(int qd) {
        return new DiskConfig(logicalBlockSize, cache, latency, qd, flushMerging);
    }

    public DiskConfig withFlushMerging(FlushMerging m) {
        return new DiskConfig(logicalBlockSize, cache, latency, queueDepth, m);
    }

    public DiskConfig withLogicalBlockSize(int lbs) {
        return new DiskConfig(lbs, cache, latency, queueDepth, flushMerging);
    }
}
