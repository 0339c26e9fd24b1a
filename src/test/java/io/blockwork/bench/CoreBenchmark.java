package io.blockwork.bench;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Issue 3's benchmarks.
 * (a) 4K random reads and writes on a 1 GiB memory disk, 1 and 2 threads at depth 1, beside the
 *     physical bound measured in the same run: copying random 4K blocks out of a 1 GiB buffer.
 * (b) 64 writers doing 4K write + flush on a writeback memory disk whose flush takes 1 ms, with
 *     flush merging on and off.
 */
final class CoreBenchmark {

    private static final long GIB = 1L << 30;
    private static final int BS = 4096;

    private CoreBenchmark() {}

    static void run() {
        randomIoAgainstCopyBound();
        flushMerging();
    }

    static void randomIoAgainstCopyBound() {
        long seconds = Bench.seconds(4);
        Disk disk = Disk.memory("bench-mem", GIB, DiskConfig.DEFAULT);
        prefill(disk);
        Table t = new Table("core (a): 4K random I/O on a 1 GiB memory disk vs. copying random 4K blocks from a 1 GiB buffer",
                "op", "threads", "engine IOPS/thread", "copy bound/thread", "engine/copy", "p50 us", "p99 us");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(GIB, 4096);
            buffer.fill((byte) 0x5a);
            copyRate(buffer, 1, 1); // warm-up
            for (RwMode op : new RwMode[] {RwMode.RANDREAD, RwMode.RANDWRITE}) {
                runRandom(disk, op, 1, 1); // warm-up
                for (int threads = 1; threads <= 2; threads++) {
                    double copy = copyRate(buffer, threads, seconds) / threads;
                    WorkloadResult r = runRandom(disk, op, threads, seconds);
                    WorkloadResult.OpResult o = op == RwMode.RANDREAD ? r.read() : r.write();
                    double engine = o.iops() / threads;
                    t.row(op.label(), threads, engine, copy, engine / copy,
                            o.latency().p50Nanos() / 1000.0, o.latency().p99Nanos() / 1000.0);
                }
            }
        }
        t.print();
    }

    private static WorkloadResult runRandom(BlockDevice disk, RwMode op, int threads, long seconds) {
        return Workload.run(disk, WorkloadSpec.builder(op, BS).jobs(threads).ioDepth(1)
                .runtime(seconds * WorkloadSpec.SECOND).build());
    }

    private static void prefill(Disk disk) {
        MemorySegment chunk = MemorySegment.ofArray(new byte[1 << 20]);
        chunk.fill((byte) 0x3c);
        for (long off = 0; off < disk.sizeBytes(); off += chunk.byteSize()) {
            SyncIo.write(disk, off, chunk);
        }
    }

    /** Copies per second of random 4K blocks out of {@code buffer}, summed over {@code threads}. */
    private static double copyRate(MemorySegment buffer, int threads, long seconds) {
        LongAdder copies = new LongAdder();
        long blocks = buffer.byteSize() / BS;
        long deadline = System.nanoTime() + seconds * WorkloadSpec.SECOND;
        Thread[] ts = new Thread[threads];
        long start = System.nanoTime();
        for (int i = 0; i < threads; i++) {
            long seed = i;
            ts[i] = Thread.ofPlatform().start(() -> {
                SplittableRandom rng = new SplittableRandom(seed);
                MemorySegment dst = MemorySegment.ofArray(new byte[BS]);
                long n = 0;
                while ((n & 1023) != 0 || System.nanoTime() - deadline < 0) {
                    MemorySegment.copy(buffer, rng.nextLong(blocks) * BS, dst, 0, BS);
                    n++;
                }
                copies.add(n);
            });
        }
        for (Thread t : ts) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return copies.sum() / ((System.nanoTime() - start) / 1e9);
    }

    static void flushMerging() {
        long seconds = Bench.seconds(4);
        Table t = new Table("core (b): 64 writers, 4K write + flush each, writeback memory disk, 1 ms media flush",
                "strategy", "writes/s", "flush requests", "media flushes", "requests/media flush",
                "flush mean ms", "flush max ms");
        double[] rate = new double[2];
        int i = 0;
        for (FlushMerging mode : new FlushMerging[] {FlushMerging.OFF, FlushMerging.MERGED}) {
            Disk disk = Disk.memory("bench-wb", 256L << 20, DiskConfig.writeback()
                    .withLatency(new LatencyModel(0, 0, 1_000_000, 0)).withFlushMerging(mode));
            WorkloadResult r = Workload.run(disk, WorkloadSpec.builder(RwMode.RANDWRITE, BS).jobs(64).ioDepth(1)
                    .fsync(1).runtime(seconds * WorkloadSpec.SECOND).build());
            long requests = disk.counters().flushes();
            long media = disk.mediaFlushes();
            rate[i++] = r.write().iops();
            t.row(mode.label(), r.write().iops(), requests, media, (double) requests / Math.max(1, media),
                    r.flush().latency().meanNanos() / 1e6, r.flush().latency().maxNanos() / 1e6);
        }
        t.row("merged/off", rate[1] / rate[0], "", "", "", "", "");
        t.print();
    }
}
