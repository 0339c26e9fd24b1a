package io.blockwork.engine.block;

import java.util.concurrent.atomic.LongAdder;

/**
 * A device's request accounting, as /proc/diskstats keeps it: counts and bytes by operation as
 * requests arrive, and, as they complete, errors, requests in flight and (while {@link #timing}
 * is on) completion latencies per operation in {@link LatencyHistogram}s.
 *
 * <p>Everything is striped ({@link LongAdder}), so many submitters and completers do not contend,
 * and nothing is summed on the I/O path: readers (the API, the metrics scrape, the once-a-second
 * I/O history) add the stripes up when they look. That is the telemetry's whole cost on the data
 * path: a stamp on the bio at submission, a few adds at completion, two clock reads while timed.
 *
 * <p>A bio is accounted by the first device it is submitted to (bios are not passed down the
 * stack as they are; layers submit children, which the lower device accounts as its own).
 */
public final class IoStats {

    /** Counters that are never fed, for devices that keep none. */
    public static final IoStats NONE = new IoStats();

    private final LongAdder reads = new LongAdder();
    private final LongAdder writes = new LongAdder();
    private final LongAdder flushes = new LongAdder();
    private final LongAdder discards = new LongAdder();
    private final LongAdder readBytes = new LongAdder();
    private final LongAdder writtenBytes = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder started = new LongAdder();
    private final LongAdder completed = new LongAdder();
    private final LatencyHistogram readLatency = new LatencyHistogram();
    private final LatencyHistogram writeLatency = new LatencyHistogram();
    private final LatencyHistogram flushLatency = new LatencyHistogram();
    private final LatencyHistogram discardLatency = new LatencyHistogram();
    private volatile boolean timing = true;

    /**
     * Takes charge of {@code bio}'s completion accounting (unless another device already has) and
     * stamps its start time while timing is on. Called first thing at submission.
     */
    void start(Bio bio) {
        if (bio.accountedBy() == null) {
            bio.accountedBy(this, timing ? System.nanoTime() : 0);
            started.increment();
        }
    }

    /** Counts a request that passed the device's checks. */
    void submitted(Bio bio) {
        switch (bio.op()) {
            case READ -> {
                reads.increment();
                readBytes.add(bio.length());
            }
            case WRITE, WRITE_ZEROES -> {
                writes.increment();
                writtenBytes.add(bio.length());
                if (bio.preflush()) {
                    flushes.increment();
                }
            }
            case FLUSH -> flushes.increment();
            case DISCARD -> discards.increment();
        }
    }

    /** The completion half of {@link #start}: called by the bio as it completes, before its callback. */
    void completed(Bio bio, long startNanos) {
        if (!bio.status().ok()) {
            errors.increment();
        }
        if (startNanos != 0) {
            long nanos = System.nanoTime() - startNanos;
            switch (bio.op()) {
                case READ -> readLatency.record(nanos);
                case WRITE, WRITE_ZEROES -> writeLatency.record(nanos);
                case FLUSH -> flushLatency.record(nanos);
                case DISCARD -> discardLatency.record(nanos);
            }
        }
        completed.increment();
    }

    /**
     * Turns latency timing on (the default) or off. Off saves two clock reads and a histogram add
     * per request; counters, errors and requests in flight are kept either way.
     */
    public void timing(boolean on) {
        timing = on;
    }

    public boolean timing() {
        return timing;
    }

    public IoCounters snapshot() {
        // completed before started: a request counted as completed is always counted as started
        long done = completed.sum();
        return new IoCounters(reads.sum(), writes.sum(), flushes.sum(), discards.sum(),
                readBytes.sum(), writtenBytes.sum(), errors.sum(), Math.max(0, started.sum() - done));
    }

    public LatencyHistogram.Snapshot readLatency() {
        return readLatency.snapshot();
    }

    public LatencyHistogram.Snapshot writeLatency() {
        return writeLatency.snapshot();
    }

    public LatencyHistogram.Snapshot flushLatency() {
        return flushLatency.snapshot();
    }

    public LatencyHistogram.Snapshot discardLatency() {
        return discardLatency.snapshot();
    }
}
