package io.blockwork.bench;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.md.FlushStrategy;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.MdStrategies;
import io.blockwork.engine.md.MemberState;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.engine.seeds.MdFlushSeed;
import io.blockwork.engine.seeds.Raid10BarrierSeed;
import io.blockwork.engine.seeds.SeedRun;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * Issue 4's benchmarks, both strategies of each seed in one run.
 * (a) Seed 000: raid10 n2 on 4 writeback memory disks whose flush takes 1 ms; 128 writers each
 *     doing 4K write + flush; {@code serial} vs {@code fanout} ({@link MdFlushSeed}, which the
 *     service's experiment for seed 000 runs too).
 * (b) Seed 001: raid10 n2 on 4 memory disks, 4K random reads at depth 1 with 1 and 2 jobs;
 *     {@code locked} vs {@code optimistic}, each as a fraction of one bare memory disk measured in
 *     the same run (best of two passes in alternating order; {@link Raid10BarrierSeed}).
 * (c) Recovery of a 1 GiB member onto a spare, idle and under a random-write load.
 */
final class MdBenchmark {

    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;
    private static final int BS = 4096;

    private MdBenchmark() {}

    static void run() {
        flushStrategies();
        barrierStrategies();
        recovery();
    }

    private static MdArray raid10(String name, List<Disk> disks, MdStrategies strategies) {
        return MdArray.create(MdArraySpec.of(name, MdLevel.RAID10).withStrategies(strategies)
                .withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED), disks);
    }

    private static List<Disk> disks(String prefix, int n, long bytes, DiskConfig config) {
        List<Disk> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Disk.memory(prefix + i, bytes, config));
        }
        return out;
    }

    /* ---- (a) seed 000 ---- */

    static void flushStrategies() {
        long seconds = Bench.seconds(4);
        MdFlushSeed seed = new MdFlushSeed();
        MdFlushSeed.Settings settings = MdFlushSeed.Settings.BENCHMARK;
        Table t = new Table("md (a) seed 000: raid10 n2 on 4 writeback memory disks (1 ms media flush), "
                + settings.writers() + " writers x (4K write + flush)",
                "flush strategy", "writes/s", "flush mean ms", "flush p99 ms", "flush max ms", "member media flushes");
        double[] rate = new double[2];
        double[] max = new double[2];
        int i = 0;
        for (FlushStrategy s : new FlushStrategy[] {FlushStrategy.SERIAL, FlushStrategy.FANOUT}) {
            MdFlushSeed.Cell c = seed.measure(s, settings, seconds, SeedRun.quiet());
            WorkloadResult r = c.result();
            rate[i] = r.write().iops();
            max[i] = r.flush().latency().maxNanos() / 1e6;
            t.row(s.label(), r.write().iops(), r.flush().latency().meanNanos() / 1e6, r.flush().latency().p99Nanos() / 1e6,
                    max[i], c.memberMediaFlushes());
            i++;
        }
        t.row("fanout/serial", rate[1] / rate[0], "", "", max[1] / max[0], "");
        t.print();
    }

    /* ---- (b) seed 001 ---- */

    static void barrierStrategies() {
        long seconds = Bench.seconds(3);
        Raid10BarrierSeed seed = new Raid10BarrierSeed();
        Table t = new Table("md (b) seed 001: 4K random reads, iodepth 1, raid10 n2 on 4 memory disks vs one bare memory disk",
                "device", "jobs", "IOPS", "IOPS/job", "of bare disk", "p50 us", "p99 us");
        try (Raid10BarrierSeed.Devices devices = seed.build(Raid10BarrierSeed.Settings.BENCHMARK, SeedRun.quiet())) {
            for (int jobs = 1; jobs <= 2; jobs++) {
                List<WorkloadResult> best = seed.bestOfPasses(devices, jobs, seconds, Raid10BarrierSeed.Settings.BENCHMARK.passes(), SeedRun.quiet());
                double bareIops = best.get(0).read().iops();
                List<BlockDevice> all = devices.all();
                for (int i = 0; i < all.size(); i++) {
                    WorkloadResult r = best.get(i);
                    t.row(devices.label(all.get(i)), jobs, r.read().iops(), r.read().iops() / jobs, r.read().iops() / bareIops,
                            r.read().latency().p50Nanos() / 1000.0, r.read().latency().p99Nanos() / 1000.0);
                }
            }
        }
        t.print();
    }

    /* ---- (c) recovery ---- */

    static void recovery() {
        long seconds = Bench.seconds(4);
        Table t = new Table("md (c) recovery of a 1 GiB member onto a spare: raid10 n2 on 4 memory disks, 512K chunks",
                "load", "speed limits KiB/s", "rebuilt MiB", "seconds", "MB/s", "user writes/s");
        List<Disk> disks = disks("rec-", 4, GIB, DiskConfig.DEFAULT);
        // Disks 0 and 1 are the mirror pair of n2 on 4 disks: fill both alike, so disk 1 is a real source.
        MemorySegment chunk = MemorySegment.ofArray(new byte[(int) MIB]);
        chunk.fill((byte) 0x5a);
        for (long off = 0; off < GIB; off += MIB) {
            SyncIo.write(disks.get(0), off, chunk);
            SyncIo.write(disks.get(1), off, chunk);
        }
        MdArray a = raid10("bench-recovery", disks, MdStrategies.DEFAULT);
        String failing = disks.getFirst().name();
        disks.clear();
        String[] loads = {"idle", "randwrite 2 jobs x iodepth 4", "randwrite 2 jobs x iodepth 4"};
        SpeedLimits[] limits = {SpeedLimits.UNLIMITED, SpeedLimits.DEFAULT, SpeedLimits.UNLIMITED};
        for (int round = 0; round < loads.length; round++) {
            a.speedLimits(limits[round]);
            a.fail(failing);
            a.remove(failing);
            System.gc();
            Disk spare = Disk.memory("rec-spare" + round, GIB, DiskConfig.DEFAULT);
            Workload load = null;
            CompletableFuture<WorkloadResult> running = null;
            if (round > 0) {
                // Writers confined to the first 256 MiB, so the members' memory stays bounded.
                load = new Workload(a, WorkloadSpec.builder(RwMode.RANDWRITE, BS).jobs(2).ioDepth(4).size(128 * MIB)
                        .runtime(60 * seconds * WorkloadSpec.SECOND).build(), Thread.ofPlatform().factory());
                Workload started = load;
                running = CompletableFuture.supplyAsync(() -> started.execute(s -> {}));
                LockSupport.parkNanos(500_000_000L);
            }
            long start = System.nanoTime();
            a.add(spare);
            long deadline = start + (round == 0 ? 120 : seconds) * WorkloadSpec.SECOND;
            long rebuilt = 0;
            while (System.nanoTime() < deadline) {
                if (state(a, spare.name()) == MemberState.IN_SYNC) {
                    rebuilt = GIB;
                    break;
                }
                rebuilt = a.detail().sync().doneBytes();
                LockSupport.parkNanos(1_000_000L);
            }
            double secs = (System.nanoTime() - start) / 1e9;
            double writes = 0;
            if (load != null) {
                load.stop();
                writes = running.join().write().iops();
            }
            t.row(loads[round], limits[round] == SpeedLimits.DEFAULT ? "1000..200000 (md's)" : "unlimited",
                    rebuilt / (double) MIB, secs, rebuilt / 1e6 / secs, writes);
            // The next round fails this spare: let it finish first.
            a.speedLimits(SpeedLimits.UNLIMITED);
            while (state(a, spare.name()) != MemberState.IN_SYNC) {
                LockSupport.parkNanos(1_000_000L);
            }
            failing = spare.name();
        }
        a.stop();
        t.print();
    }

    private static MemberState state(MdArray a, String device) {
        return a.detail().members().stream().filter(m -> device.equals(m.device())).findFirst()
                .map(m -> m.state()).orElse(MemberState.REMOVED);
    }
}
