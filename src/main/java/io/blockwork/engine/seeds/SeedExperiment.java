package io.blockwork.engine.seeds;

import java.util.List;

/**
 * One seed's workload, run under the seed's old strategy and its fix on scratch devices the run
 * builds (memory or null disks nobody else sees) and removes. The benchmark programs measure the
 * same cells with their own durations and more rows; the service's experiments run
 * {@link #run} over REST. One implementation for both, so their figures agree.
 */
public sealed interface SeedExperiment
        permits MdFlushSeed, Raid10BarrierSeed, DmEmptyFlushSeed, MirrorDispatchSeed, SnapshotLockingSeed {

    /** "000" … "004", as the seed files are numbered. */
    String seed();

    /** The workload in words. */
    String workload();

    /** The headline figure and its unit. */
    String metric();

    boolean higherIsBetter();

    /** The strategy labels, old one first. */
    List<String> strategies();

    /** Measures both strategies, {@code seconds} each, and compares them. */
    SeedOutcome run(long seconds, SeedRun run);

    /** Every seed, in order. */
    static List<SeedExperiment> all() {
        return List.of(new MdFlushSeed(), new Raid10BarrierSeed(), new DmEmptyFlushSeed(), new MirrorDispatchSeed(),
                new SnapshotLockingSeed());
    }

    /** The seed numbered {@code seed}. */
    static SeedExperiment of(String seed) {
        return all().stream().filter(e -> e.seed().equals(seed)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown seed '" + seed + "' (000, 001, 002, 003, 004)"));
    }
}
