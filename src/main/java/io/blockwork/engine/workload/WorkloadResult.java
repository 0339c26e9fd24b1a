package io.blockwork.engine.workload;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What a workload measured.
 *
 * @param elapsedNanos duration of the measured phase (the verify pass is not included)
 * @param errors I/Os that completed with an error; a job stops at its first, like fio
 * @param firstError the first error seen, or null
 * @param samples one per sample interval
 * @param cancelled ended by {@link Workload#cancel}: the figures cover what ran, and the verify
 *                  pass at the end did not run
 */
public record WorkloadResult(WorkloadSpec spec, long elapsedNanos, OpResult read, OpResult write, OpResult flush,
                             long errors, String firstError, VerifyResult verify, List<WorkloadSample> samples,
                             boolean cancelled) {

    /** Totals of one kind of operation. */
    public record OpResult(long ios, long bytes, double iops, double bytesPerSecond, LatencyStats latency) {
        static OpResult of(Histogram h, long bytesPerIo, long elapsedNanos) {
            long ios = h.getTotalCount();
            double seconds = elapsedNanos / 1e9;
            return new OpResult(ios, ios * bytesPerIo, seconds > 0 ? ios / seconds : 0,
                    seconds > 0 ? ios * bytesPerIo / seconds : 0, LatencyStats.of(h));
        }
    }

    /** Completion latencies, submit to completion, in nanoseconds. */
    public record LatencyStats(double meanNanos, long minNanos, long p50Nanos, long p90Nanos, long p99Nanos,
                               long p999Nanos, long maxNanos) {
        static LatencyStats of(Histogram h) {
            if (h.getTotalCount() == 0) {
                return new LatencyStats(0, 0, 0, 0, 0, 0, 0);
            }
            return new LatencyStats(h.getMean(), h.getMinValue(), h.getValueAtPercentile(50),
                    h.getValueAtPercentile(90), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9),
                    h.getMaxValue());
        }
    }

    /**
     * The verify pass.
     *
     * @param blocksChecked written blocks read back and compared (during the run and at its end)
     * @param mismatches blocks whose content was not what was last written there
     * @param firstMismatches descriptions of the first few mismatches
     */
    public record VerifyResult(long blocksChecked, long mismatches, List<String> firstMismatches) {
        public static final VerifyResult NONE = new VerifyResult(0, 0, List.of());
    }

    /**
     * One sample interval of a running workload: rates over the interval, totals since the start.
     *
     * @param reads reads completed since the start
     * @param writes writes completed since the start
     * @param errors I/Os failed since the start
     */
    public record WorkloadSample(long elapsedMillis, double readIops, double writeIops, double readBytesPerSecond,
                                 double writeBytesPerSecond, long readP99Nanos, long writeP99Nanos,
                                 long reads, long writes, long errors) {}
}
