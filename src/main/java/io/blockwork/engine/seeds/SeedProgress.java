package io.blockwork.engine.seeds;

import io.blockwork.engine.workload.WorkloadResult.WorkloadSample;

/**
 * What a seed run is doing now.
 *
 * @param strategy the strategy being set up or measured
 * @param phase "building", "prefilling …", "warming up", "running"
 * @param sample the last second's figures while running; null otherwise
 */
public record SeedProgress(String strategy, String phase, WorkloadSample sample) {
}
