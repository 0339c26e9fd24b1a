package io.blockwork.engine.seeds;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.dm.TableException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One seed's workload, run under the seed's old strategy and its fix on scratch devices the run
 * builds (memory or null disks nobody else sees) and removes. The benchmark programs measure the
 * same cells with their own durations and more rows; the service's experiments run
 * {@link #run} over REST. One implementation for both, so their figures agree.
 *
 * <p>The harness every seed shares lives here: what a seed says about itself (number, workload,
 * metric, strategies), its scratch disks, its device-mapper tables, and the alternating order in
 * which a seed that runs each device more than once runs them.
 */
public abstract sealed class SeedExperiment
        permits MdFlushSeed, Raid10BarrierSeed, DmEmptyFlushSeed, MirrorDispatchSeed, SnapshotLockingSeed {

    private final String seed;
    private final String workload;
    private final String metric;
    private final boolean higherIsBetter;
    private final List<String> strategies;

    SeedExperiment(String seed, String workload, String metric, boolean higherIsBetter, List<String> strategies) {
        this.seed = seed;
        this.workload = workload;
        this.metric = metric;
        this.higherIsBetter = higherIsBetter;
        this.strategies = List.copyOf(strategies);
    }

    /** "000" … "004", as the seed files are numbered. */
    public final String seed() {
        return seed;
    }

    /** The workload in words. */
    public final String workload() {
        return workload;
    }

    /** The headline figure and its unit. */
    public final String metric() {
        return metric;
    }

    public final boolean higherIsBetter() {
        return higherIsBetter;
    }

    /** The strategy labels, old one first. */
    public final List<String> strategies() {
        return strategies;
    }

    /** Measures both strategies, {@code seconds} each, and compares them. */
    public abstract SeedOutcome run(long seconds, SeedRun run);

    /** Every seed, in order. */
    public static List<SeedExperiment> all() {
        return List.of(new MdFlushSeed(), new Raid10BarrierSeed(), new DmEmptyFlushSeed(), new MirrorDispatchSeed(),
                new SnapshotLockingSeed());
    }

    /** The seed numbered {@code seed}. */
    public static SeedExperiment of(String seed) {
        return all().stream().filter(e -> e.seed().equals(seed)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown seed '" + seed + "' (000, 001, 002, 003, 004)"));
    }

    /* ---- The harness ---- */

    /** {@code count} memory disks {@code prefix0}, {@code prefix1}, … of {@code bytes} each. */
    static List<Disk> memoryDisks(String prefix, int count, long bytes, DiskConfig config) {
        List<Disk> disks = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            disks.add(Disk.memory(prefix + i, bytes, config));
        }
        return disks;
    }

    /** A name lookup for the tables a seed builds over {@code devices}. */
    static Map<String, BlockDevice> byName(List<? extends BlockDevice> devices) {
        Map<String, BlockDevice> names = new HashMap<>();
        devices.forEach(d -> names.put(d.name(), d));
        return names;
    }

    /** Building a seed's device-mapper device from its table. */
    @FunctionalInterface
    interface TableBuild<T> {
        T build() throws TableException;
    }

    /**
     * Builds a seed's device-mapper devices. Their tables are fixed by the seed, so a refusal is
     * a bug here, not bad input: it ends the run.
     */
    static <T> T tables(String what, TableBuild<T> build) {
        try {
            return build.build();
        } catch (TableException e) {
            throw new IllegalStateException("the seed's " + what + " was refused", e);
        }
    }

    /**
     * The order in which {@code passes} runs of each of {@code devices} go: in order on even
     * passes, reversed on odd ones, so a burst of other work on a shared machine falls on all of
     * them alike. Device indexes, one per run.
     */
    static List<Integer> alternating(int devices, int passes) {
        List<Integer> order = new ArrayList<>(devices * passes);
        for (int pass = 0; pass < passes; pass++) {
            for (int k = 0; k < devices; k++) {
                order.add(pass % 2 == 0 ? k : devices - 1 - k);
            }
        }
        return order;
    }
}
