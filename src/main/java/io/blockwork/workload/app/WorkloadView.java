package io.blockwork.workload.app;

import io.blockwork.engine.workload.WorkloadResult;
import java.time.Instant;

/**
 * A workload as the API shows it: what was asked, live progress while it runs, fio-style figures
 * once it has ended.
 *
 * @param state running, finished, failed, cancelled or interrupted
 * @param progress while running; null afterwards
 * @param result once ended (absent if it failed before running)
 * @param error why it failed, was cancelled or interrupted; null otherwise
 */
public record WorkloadView(long id, String device, String state, WorkloadSettings spec, Instant startedAt,
                           Instant endedAt, Progress progress, Report result, String error) {

    /**
     * The last second of a running workload and its totals.
     *
     * @param percent how far it is (by time for a runtime, by I/Os otherwise); null if unknown
     */
    public record Progress(long elapsedMillis, Double percent, double readIops, double writeIops,
                           double readBytesPerSecond, double writeBytesPerSecond, double readP99Us,
                           double writeP99Us, long reads, long writes, long errors) {}

    /**
     * fio's summary: per operation the I/Os, bytes, IOPS, bandwidth and completion latency
     * percentiles (nanoseconds); I/O errors (a job stops at its first, as fio does) and verify.
     *
     * @param verify blocks checked and mismatches; all 0 when not verifying, or when the final
     *               read-back did not run (an error or a cancel)
     */
    public record Report(long elapsedMillis, WorkloadResult.OpResult read, WorkloadResult.OpResult write,
                         WorkloadResult.OpResult flush, long errors, String firstError,
                         WorkloadResult.VerifyResult verify, boolean cancelled) {

        public static Report of(WorkloadResult r) {
            return new Report(r.elapsedNanos() / 1_000_000, r.read(), r.write(), r.flush(), r.errors(), r.firstError(),
                    r.verify(), r.cancelled());
        }
    }
}
