package io.blockwork.workload.experiment;

import io.blockwork.workload.app.WorkloadView;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A seed experiment as the API shows it.
 *
 * @param seconds how long each measured run lasted
 * @param state running, finished, failed, cancelled or interrupted
 * @param progress while running: the step and the strategy being measured; null afterwards
 * @param result once finished: both strategies and the ratio
 */
public record ExperimentView(long id, String seed, long seconds, String state, Instant startedAt, Instant endedAt,
                             Progress progress, Result result, String error) {

    /**
     * @param phase "building …", "prefilling …", "warming up", "running"
     * @param sample the last second's figures while a workload runs; null otherwise
     */
    public record Progress(String strategy, String phase, WorkloadSample sample) {}

    /** One second of the workload being measured. */
    public record WorkloadSample(long elapsedMillis, double readIops, double writeIops, double readP99Us,
                                 double writeP99Us) {}

    /**
     * Both strategies of the seed, measured in the same run by the same code as the Maven benchmark.
     *
     * @param workload what ran, in words
     * @param metric the headline figure's name and unit
     * @param ratio after over before for a rate, before over after for a latency: above 1 means the
     *              seed's fix helped
     */
    public record Result(String seed, String workload, String metric, boolean higherIsBetter, Strategy before,
                         Strategy after, double ratio) {}

    /**
     * @param value the headline figure
     * @param run the workload's fio-style figures
     * @param samples its per-second IOPS, for charts side by side
     * @param extra what the seed's benchmark table also shows
     */
    public record Strategy(String strategy, double value, WorkloadView.Report run, List<WorkloadSample> samples,
                           Map<String, Double> extra) {}
}
