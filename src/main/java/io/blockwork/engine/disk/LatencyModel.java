package io.blockwork.engine.disk;

import io.blockwork.engine.block.BioOp;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Service times a disk adds to each request, in nanoseconds, so that costs the seeds measured on
 * real hardware show on a RAM-backed machine. Jitter spreads each time uniformly over
 * {@code [t - jitter, t + jitter]}, never below zero. For a null disk this is null_blk's
 * {@code completion_nsec}.
 */
public record LatencyModel(long readNanos, long writeNanos, long flushNanos, long jitterNanos) {

    public static final LatencyModel NONE = new LatencyModel(0, 0, 0, 0);

    public LatencyModel {
        if (readNanos < 0 || writeNanos < 0 || flushNanos < 0 || jitterNanos < 0) {
            throw new IllegalArgumentException("latencies must not be negative");
        }
    }

    /** The service time of one request of {@code op}; 0 means complete inline. */
    public long sample(BioOp op) {
        long base = op == BioOp.READ ? readNanos : writeNanos;
        return jitter(base);
    }

    public long sampleFlush() {
        return jitter(flushNanos);
    }

    private long jitter(long base) {
        if (jitterNanos == 0) {
            return base;
        }
        long j = ThreadLocalRandom.current().nextLong(-jitterNanos, jitterNanos + 1);
        return Math.max(0, base + j);
    }

    public boolean isZero() {
        return equals(NONE);
    }
}
