package io.blockwork.bench;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.MemberState;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.engine.md.metadata.MetadataSpec;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

/**
 * Issue 17's benchmark: {@code mvn -B -ntp test-compile exec:exec -Dbench=mdbitmap}.
 * (a) A raid1 of two 1 GiB members; one member is failed and removed, 1 % of the array is
 *     written, the member comes back: re-added through the write-intent bitmap (64 KiB chunks)
 *     against a full rebuild. Bytes resynced (what recovery copied) and seconds.
 * (b) The bitmap's cost on 4K random writes: the same raid1 without metadata, with v1.2
 *     superblocks, and with superblocks and the bitmap; on memory disks without latency (the
 *     bitmap's CPU cost alone) and with 50 µs writes (an SSD-like member). The three arrays run in
 *     rotating order, best of three rounds, so that JIT warm-up and a loaded machine's noise fall
 *     on each alike; the bitmap's first round includes setting the bits of the 2048 chunks written.
 * Members are sparse memory disks holding only what was written, so the full rebuild reads
 * mostly unallocated pages: its time is a lower bound; its bytes are exact.
 */
final class MdBitmapBenchmark {

    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;
    /** mdadm's data offset for a 1 GiB member is 2 MiB: members this size give a 1 GiB array. */
    private static final long MEMBER = GIB + 2 * MIB;
    private static final int BS = 4096;

    private MdBitmapBenchmark() {}

    static void run() {
        reAdd();
        randomWrites();
    }

    private static MdArray raid1(String name, MetadataSpec metadata, DiskConfig config) {
        List<Disk> disks = List.of(Disk.memory(name + "-0", MEMBER, config), Disk.memory(name + "-1", MEMBER, config));
        return MdArray.create(MdArraySpec.of(name, MdLevel.RAID1).withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED)
                .withMetadata(metadata), disks);
    }

    private static BlockDevice member(MdArray a, int slot) {
        return List.copyOf(a.lowerDevices()).get(slot);
    }

    /* ---- (a) re-add ---- */

    /** How 1 % of the array is written while the member is out. */
    private enum Pattern {
        RUNS("1 MiB runs at 10 random places"),
        RANDOM("4 KiB at 2621 random places");

        final String label;

        Pattern(String label) {
            this.label = label;
        }
    }

    static void reAdd() {
        Table t = new Table("md bitmap (a) re-add after writing 1 % of a 1 GiB raid1 while one member was out "
                + "(2 memory disks, bitmap chunk 64 KiB)", "written while out", "member comes back", "written MiB",
                "resynced MiB", "resynced % of array", "seconds");
        for (Pattern p : Pattern.values()) {
            reAdd(t, p, true);
        }
        reAdd(t, Pattern.RUNS, false);
        t.print();
    }

    private static void reAdd(Table t, Pattern pattern, boolean throughBitmap) {
        MdArray a = raid1("bench-readd", MetadataSpec.v12(new MetadataSpec.Bitmap(64 * 1024, 5)), DiskConfig.DEFAULT);
        BlockDevice out = member(a, 1);
        a.fail(out.name());
        a.remove(out.name());
        long written = write(a, pattern);
        System.gc();
        long start = System.nanoTime();
        String how = throughBitmap ? a.reAdd(out) : "full";
        if (!throughBitmap) {
            a.add(out);
        }
        while (state(a, out.name()) != MemberState.IN_SYNC) {
            LockSupport.parkNanos(200_000L);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long resynced = a.detail().recoveredBytes();
        t.row(pattern.label, how.equals("bitmap") ? "re-add through the bitmap" : "full rebuild (added as a spare)",
                written / (double) MIB, resynced / (double) MIB, 100.0 * resynced / a.sizeBytes(), seconds);
        a.stop();
    }

    /** Writes 1 % of the array in {@code pattern}; returns the bytes written. */
    private static long write(MdArray a, Pattern pattern) {
        Random r = new Random(17);
        long target = a.sizeBytes() / 100;
        long written = 0;
        if (pattern == Pattern.RUNS) {
            MemorySegment run = MemorySegment.ofArray(new byte[(int) MIB]);
            run.fill((byte) 0x6b);
            while (written < target) {
                SyncIo.write(a, (r.nextLong(a.sizeBytes() / MIB)) * MIB, run);
                written += MIB;
            }
        } else {
            MemorySegment block = MemorySegment.ofArray(new byte[BS]);
            block.fill((byte) 0x6c);
            while (written < target) {
                SyncIo.write(a, r.nextLong(a.sizeBytes() / BS) * BS, block);
                written += BS;
            }
        }
        SyncIo.flush(a);
        return written;
    }

    private static MemberState state(MdArray a, String device) {
        return a.detail().members().stream().filter(m -> device.equals(m.device())).findFirst()
                .map(m -> m.state()).orElse(MemberState.REMOVED);
    }

    /* ---- (b) the bitmap's cost ---- */

    /** Each job's region; two jobs write 128 MiB of the array, 2048 bitmap chunks. */
    private static final long REGION = 64 * MIB;
    private static final int ROUNDS = 3;

    static void randomWrites() {
        long seconds = Bench.seconds(5);
        Table t = new Table("md bitmap (b) 4K random writes on a raid1 of 2 memory disks, 2 jobs x iodepth 16 over "
                + "128 MiB; best of " + ROUNDS + " rounds of " + seconds + " s in rotating order; round 1 of the bitmap sets its bits",
                "member disks", "metadata", "IOPS", "p99 us", "of none", "round 1 IOPS");
        String[] names = {"none", "1.2, no bitmap", "1.2 + bitmap (64 KiB chunks)"};
        MetadataSpec[] specs = {MetadataSpec.NONE, MetadataSpec.v12(null), MetadataSpec.v12(new MetadataSpec.Bitmap(64 * 1024, 5))};
        for (LatencyModel latency : new LatencyModel[] {LatencyModel.NONE, new LatencyModel(0, 50_000, 0, 0)}) {
            DiskConfig config = DiskConfig.DEFAULT.withLatency(latency);
            MdArray[] arrays = new MdArray[names.length];
            for (int v = 0; v < names.length; v++) {
                arrays[v] = raid1("bench-bitmap-" + v, specs[v], config);
                prefill(arrays[v]);
            }
            WorkloadResult[] best = new WorkloadResult[names.length];
            double[] first = new double[names.length];
            for (int round = 0; round < ROUNDS; round++) {
                for (int i = 0; i < names.length; i++) {
                    int v = (i + round) % names.length;
                    System.gc();
                    WorkloadResult r = randomWrites(arrays[v], seconds);
                    if (round == 0) {
                        first[v] = r.write().iops();
                    }
                    if (best[v] == null || r.write().iops() > best[v].write().iops()) {
                        best[v] = r;
                    }
                }
            }
            for (int v = 0; v < names.length; v++) {
                t.row(latency.isZero() ? "no latency" : "50 us writes", names[v], best[v].write().iops(),
                        best[v].write().latency().p99Nanos() / 1000.0, best[v].write().iops() / best[0].write().iops(),
                        first[v]);
                arrays[v].stop();
            }
        }
        t.print();
    }

    /**
     * Writes the jobs' regions on the members directly, below the array: the pages exist before the
     * run (allocation is not measured) and no bitmap bit is set by it.
     */
    private static void prefill(MdArray a) {
        MemorySegment chunk = MemorySegment.ofArray(new byte[(int) MIB]);
        chunk.fill((byte) 0x3c);
        long offset = a.detail().metadata().dataOffsetBytes();
        for (BlockDevice d : a.lowerDevices()) {
            for (long at = 0; at < 2 * REGION; at += MIB) {
                SyncIo.write(d, offset + at, chunk);
            }
        }
    }

    private static WorkloadResult randomWrites(MdArray a, long seconds) {
        return Workload.run(a, WorkloadSpec.builder(RwMode.RANDWRITE, BS).jobs(2).ioDepth(16).size(REGION)
                .runtime(seconds * WorkloadSpec.SECOND).build());
    }
}
