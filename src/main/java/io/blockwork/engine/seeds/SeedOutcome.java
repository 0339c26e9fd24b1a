package io.blockwork.engine.seeds;

import io.blockwork.engine.workload.WorkloadResult;
import java.util.Map;

/**
 * Both strategies of one seed measured in one run, and how far apart they are.
 *
 * @param seed "000" … "004"
 * @param workload what ran, in words (the benchmark table's title)
 * @param metric what {@link Measured#value} is, with its unit ("writes/s", "mean write latency us")
 * @param higherIsBetter whether a larger {@code value} is the better one
 * @param before the seed's old behaviour
 * @param after the fixed behaviour (the default)
 * @param ratio after over before for a rate, before over after for a latency: above 1 means the
 *              fix helped, as in the seeds' own tables
 */
public record SeedOutcome(String seed, String workload, String metric, boolean higherIsBetter, Measured before,
                          Measured after, double ratio) {

    static SeedOutcome of(SeedExperiment e, Measured before, Measured after) {
        double ratio = e.higherIsBetter() ? after.value() / before.value() : before.value() / after.value();
        return new SeedOutcome(e.seed(), e.workload(), e.metric(), e.higherIsBetter(), before, after,
                Double.isFinite(ratio) ? ratio : 0);
    }

    /**
     * One strategy's figures.
     *
     * @param value the headline figure in {@link SeedOutcome#metric()}'s unit
     * @param result the workload's full result (IOPS, bandwidth, latency percentiles per op)
     * @param extra figures the seed's benchmark also shows (media flushes per fsync, timer unplugs)
     */
    public record Measured(String strategy, double value, WorkloadResult result, Map<String, Double> extra) {
    }
}
