package io.blockwork.engine.seeds;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.engine.md.FlushStrategy;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.MdStrategies;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Seed 000, md flush: raid10 n2 on 4 writeback memory disks whose media flush takes 1 ms, many
 * writers each doing 4K write + flush; {@code serial} (one array flush at a time) against
 * {@code fanout} (every flush goes to the members at once and merges there).
 */
public final class MdFlushSeed extends SeedExperiment {

    /**
     * @param diskBytes size of each member (prefilled before the run)
     * @param writers jobs at iodepth 1, each flushing after every write
     */
    public record Settings(long diskBytes, int writers, long flushLatencyNanos) {
        /** The benchmark's: 256 MiB members, 128 writers, 1 ms flushes. */
        public static final Settings BENCHMARK = new Settings(256L << 20, 128, 1_000_000);
        /** The experiment's: the same with 32 MiB members, so a run over REST costs 128 MiB, not 1 GiB. */
        public static final Settings EXPERIMENT = new Settings(32L << 20, 128, 1_000_000);
    }

    /** One strategy's run and the flushes its members' media performed. */
    public record Cell(WorkloadResult result, long memberMediaFlushes) {}

    public MdFlushSeed() {
        super("000", "md flush: raid10 n2 on 4 writeback memory disks (1 ms media flush), "
                + Settings.EXPERIMENT.writers() + " writers x (4K write + flush)",
                "writes/s", true, List.of(FlushStrategy.SERIAL.label(), FlushStrategy.FANOUT.label()));
    }

    @Override
    public SeedOutcome run(long seconds, SeedRun run) {
        List<SeedOutcome.Measured> m = new ArrayList<>();
        for (FlushStrategy s : List.of(FlushStrategy.SERIAL, FlushStrategy.FANOUT)) {
            Cell c = measure(s, Settings.EXPERIMENT, seconds, run);
            WorkloadResult r = c.result();
            m.add(new SeedOutcome.Measured(s.label(), r.write().iops(), r, Map.of(
                    "flushMeanMs", r.flush().latency().meanNanos() / 1e6,
                    "flushMaxMs", r.flush().latency().maxNanos() / 1e6,
                    "memberMediaFlushes", (double) c.memberMediaFlushes())));
        }
        return SeedOutcome.of(this, m.get(0), m.get(1));
    }

    /** Builds the array under {@code strategy}, prefills and warms it up, measures, stops it. */
    public Cell measure(FlushStrategy strategy, Settings settings, long seconds, SeedRun run) {
        String s = strategy.label();
        run.phase(s, "building raid10 on 4 writeback memory disks");
        DiskConfig config = DiskConfig.writeback().withLatency(new LatencyModel(0, 0, settings.flushLatencyNanos(), 0));
        List<Disk> disks = memoryDisks("seed000-" + s + "-", 4, settings.diskBytes(), config);
        MdArray a = MdArray.create(MdArraySpec.of("seed000-" + s, MdLevel.RAID10)
                .withStrategies(MdStrategies.DEFAULT.withFlush(strategy))
                .withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED), disks);
        try {
            run.prefill(s, a);
            run.phase(s, "warming up");
            run.execute(s, a, spec(settings, 1));
            System.gc();
            long before = disks.stream().mapToLong(Disk::mediaFlushes).sum();
            WorkloadResult r = run.execute(s, a, spec(settings, seconds));
            return new Cell(r, disks.stream().mapToLong(Disk::mediaFlushes).sum() - before);
        } finally {
            a.stop();
        }
    }

    private static WorkloadSpec spec(Settings settings, long seconds) {
        return WorkloadSpec.builder(RwMode.RANDWRITE, 4096).jobs(settings.writers()).ioDepth(1)
                .fsync(1).runtime(seconds * WorkloadSpec.SECOND).build();
    }
}
