package io.blockwork.engine.seeds;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.targets.Targets;
import io.blockwork.engine.dm.targets.mirror.MirrorTarget;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Seed 003, dm mirror dispatch: 8 KiB synchronous (FUA) random writes at iodepth 1 through a
 * two-leg dm mirror (core log, in sync) whose worker releases the legs' plugged queues
 * {@code explicit}ly after each batch, against {@code timer} (they wait for the old block layer's
 * 3 ms unplug timer). The disks are writeback memory disks with a small service time: every
 * write takes {@value #WRITE_US} us and a cache flush {@value #FLUSH_US} us, so the comparison is
 * about the seed's question, whether a synchronous write waits for anything it need not. The
 * benchmark adds md raid1 on identical disks and a disk-log mirror; the experiment runs one writer.
 */
public final class MirrorDispatchSeed extends SeedExperiment {

    public static final int WRITE_US = 200;
    public static final int FLUSH_US = 1000;
    private static final long SIZE = 32L << 20;
    private static final int BS = 8192;
    private static final int EXPERIMENT_WRITERS = 1;

    /**
     * A device under test.
     *
     * @param dispatch the mirror's strategy label; "" for md raid1
     * @param mirror the mirror target, to count its timer unplugs; null for md raid1
     */
    public record Device(String label, String dispatch, BlockDevice device, MirrorTarget mirror, Runnable stop) {
        public long directWrites() {
            return mirror == null ? 0 : mirror.directWrites();
        }

        public long timerUnplugs() {
            return mirror == null ? 0 : mirror.timerUnplugs();
        }
    }

    /** One pass of a device: its result, and the timer unplugs and fast-path writes it caused. */
    public record Best(WorkloadResult result, long timerUnplugs, long directWrites) {}

    public MirrorDispatchSeed() {
        super("003", "dm mirror dispatch: 8K FUA randwrite, iodepth 1, " + EXPERIMENT_WRITERS
                + " writer, 2 legs (core log) on writeback memory disks (" + WRITE_US + " us write, " + FLUSH_US
                + " us flush)", "mean write latency us", false,
                List.of(BatchDispatch.Kind.TIMER.label(), BatchDispatch.Kind.EXPLICIT.label()));
    }

    @Override
    public SeedOutcome run(long seconds, SeedRun run) {
        DiskConfig disks = diskConfig();
        List<Device> devices = List.of(
                mirror("dm mirror", "core 2 1024 nosync", BatchDispatch.Kind.TIMER, disks, run),
                mirror("dm mirror", "core 2 1024 nosync", BatchDispatch.Kind.EXPLICIT, disks, run));
        try {
            List<Best> best = bestOfTwoPasses(devices, EXPERIMENT_WRITERS, seconds, run);
            List<SeedOutcome.Measured> m = new ArrayList<>();
            for (int i = 0; i < devices.size(); i++) {
                WorkloadResult r = best.get(i).result();
                m.add(new SeedOutcome.Measured(devices.get(i).dispatch(), r.write().latency().meanNanos() / 1000.0, r,
                        Map.of("timerUnplugsPerWrite", (double) best.get(i).timerUnplugs() / Math.max(1, r.write().ios()),
                                "iops", r.write().iops())));
            }
            return SeedOutcome.of(this, m.get(0), m.get(1));
        } finally {
            devices.forEach(d -> d.stop().run());
        }
    }

    /** Writeback memory disks with the seed's service times. */
    public static DiskConfig diskConfig() {
        return DiskConfig.writeback().withLatency(new LatencyModel(WRITE_US * 1000L, WRITE_US * 1000L, FLUSH_US * 1000L, 0));
    }

    /** md raid1 on two such disks, prefilled. */
    public Device raid1(DiskConfig config, SeedRun run) {
        List<Disk> legs = List.of(Disk.memory("md-0", SIZE, config), Disk.memory("md-1", SIZE, config));
        MdArray a = MdArray.create(MdArraySpec.of("seed003-raid1", MdLevel.RAID1).withAssumeClean(true), legs);
        run.prefill("md raid1", a);
        return new Device("md raid1", "", a, null, a::stop);
    }

    /** A two-leg mirror with the given log ({@code core …} or {@code disk 3 log …}), prefilled. */
    public Device mirror(String label, String log, BatchDispatch.Kind kind, DiskConfig config, SeedRun run) {
        String p = "mir-" + kind.label() + (log.startsWith("disk") ? "-log" : "") + "-";
        run.phase(kind.label(), "building a two-leg mirror");
        Map<String, BlockDevice> names = byName(memoryDisks(p, 2, SIZE, config));
        names.put("log", Disk.memory(p + "log", 1L << 20, config));
        MappedDevice m = tables("mirror table", () -> MappedDevice.create(p + "dev", null,
                "0 " + (SIZE >> 9) + " mirror " + log + " 2 " + p + "0 0 " + p + "1 0\n", names::get,
                Targets.config().withBatchDispatch(kind)));
        MirrorTarget t = (MirrorTarget) m.liveTable().entries().getFirst().target();
        run.prefill(kind.label(), m);
        return new Device(label, kind.label(), m, t, m::remove);
    }

    /**
     * Each device twice, in order and then in reverse; the run with the lower mean latency counts,
     * so a burst of other work on a shared machine hurts one device less than the others.
     */
    public List<Best> bestOfTwoPasses(List<Device> devices, int writers, long seconds, SeedRun run) {
        return pick(passes(devices, writers, seconds, 2, run), false);
    }

    /**
     * Each device's median pass (by mean latency) of {@code passes}, the devices in order on even
     * passes and in reverse on odd ones, so a burst of other work on a shared machine falls on
     * all of them alike.
     */
    public List<Best> medianOfPasses(List<Device> devices, int writers, long seconds, int passes, SeedRun run) {
        return pick(passes(devices, writers, seconds, passes, run), true);
    }

    private List<List<Best>> passes(List<Device> devices, int writers, long seconds, int passes, SeedRun run) {
        List<List<Best>> runs = new ArrayList<>();
        devices.forEach(d -> runs.add(new ArrayList<>()));
        for (int i : alternating(devices.size(), passes)) {
            Device d = devices.get(i);
            long before = d.timerUnplugs();
            long directBefore = d.directWrites();
            WorkloadResult r = run.execute(d.dispatch().isEmpty() ? d.label() : d.dispatch(), d.device(),
                    WorkloadSpec.builder(RwMode.RANDWRITE, BS).jobs(writers).ioDepth(1).sync(true)
                            .runtime(seconds * WorkloadSpec.SECOND).build());
            runs.get(i).add(new Best(r, d.timerUnplugs() - before, d.directWrites() - directBefore));
        }
        return runs;
    }

    /** The best (lowest mean latency) or the median pass of each device. */
    private static List<Best> pick(List<List<Best>> runs, boolean median) {
        List<Best> out = new ArrayList<>();
        for (List<Best> r : runs) {
            List<Best> sorted = new ArrayList<>(r);
            sorted.sort(Comparator.comparingDouble(b -> b.result().write().latency().meanNanos()));
            out.add(sorted.get(median ? sorted.size() / 2 : 0));
        }
        return out;
    }
}
