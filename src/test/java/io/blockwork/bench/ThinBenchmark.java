package io.blockwork.bench;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.snapshot.StoreType;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.engine.dm.targets.Targets;
import io.blockwork.engine.dm.targets.Thins;
import io.blockwork.engine.dm.thin.PoolFeatures;
import io.blockwork.engine.dm.thin.PoolMetadata;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import com.sun.management.OperatingSystemMXBean;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.DoubleSummaryStatistics;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 19's benchmark: 4K random writes on a thin volume that is fresh (every first write to a
 * block provisions it: allocate, zero, write, insert the mapping), provisioned (writes go in
 * place), and the origin of a thin snapshot (every first write to a block breaks sharing: copy the
 * 64 KiB block, write, remap), against a classic linear volume and the origin of a classic
 * copy-on-write snapshot (4 KiB chunks, persistent store: every first write to a chunk copies it
 * out first), in one run.
 *
 * <p>Data on null disks (null_blk, as the snapshot benchmark), so the figures are the stacks'
 * own; thin metadata on a memory disk. Each cell builds its devices fresh and runs for the cell's
 * seconds, then flushes its volume, measured (IOPS count the flush's time, CPU its work: a thin
 * pool writes its batched reference counts at that commit); a case whose writes copy or provision on first touch stops earlier when its writes
 * reach a quarter of the region's thin blocks, so first writes dominate where they exist (the
 * "first writes" column says how many of the cell's writes provisioned a block or broke sharing). Every case runs once unmeasured first
 * (JIT warm-up); then each table runs its cases {@value #ROUNDS} times, taking turns in rotating
 * order, and shows each cell's median round, the spread of its rounds, and the process's CPU time
 * per write (all threads: the job, a snapshot's copier, the pool's commit worker), which a loaded
 * machine disturbs less than IOPS. The pool's data device holds the
 * region twice over, so breaking sharing never runs out of space. Rows by workers (iodepth 32
 * each); ratios against the reference named in the last columns.
 *
 * <p>Then the two snapshot origins again on devices whose cache flush takes 0.5 ms (writeback
 * null disks, the metadata disk too): a classic persistent snapshot makes each batch of new
 * exceptions durable (PREFLUSH and FUA) before the origin writes that caused them complete, as
 * dm-snapshot does; a thin pool makes new mappings durable at the next flush or commit, so its
 * writes never wait for one. Null disks with free flushes hide that difference.
 *
 * <p>Run: {@code mvn -B -ntp test-compile exec:exec -Dbench=thin} ({@code BENCH_SECONDS=1} for a
 * quick look, {@code BENCH_TABLES="1 worker"} for a subset of the tables, {@code BENCH_ROUNDS}).
 */
final class ThinBenchmark {

    private static final long REGION = 16L << 30;
    private static final long THIN_BLOCK = 64L << 10;
    private static final long CHUNK_SECTORS = 8;
    private static final int[] WORKERS = {1, 4};
    private static final int IO_DEPTH = 32;
    /** Rounds per cell (BENCH_ROUNDS): odd, so the median is one run. */
    private static final int ROUNDS = (int) Math.max(1, Bench.rounds(3)) | 1;
    /** CPU time of the whole process (job threads, copier and commit threads alike) per cell. */
    private static final OperatingSystemMXBean PROCESS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    /** The base disk, and the pool's data device: the region twice (provisioned, then every block copied once) and a spare GiB. */
    private static final long POOL_DATA = 2 * REGION + (1L << 30);

    /**
     * BENCH_CASES=thin_provisioned,linear (case names, any case) measures only those cases, for a
     * profile of one path; the ratios need their reference case in the set.
     */
    private static final String ONLY_CASES = System.getenv().getOrDefault("BENCH_CASES", "");

    private ThinBenchmark() {}

    private enum Case {
        LINEAR("classic linear volume", false),
        COW_ORIGIN("classic snapshot origin (4 KiB chunks)", true),
        THIN_FRESH("thin, fresh (provisioning)", true),
        THIN_PROVISIONED("thin, provisioned", false),
        THIN_SNAPSHOTTED("thin, origin of a snapshot", true);

        final String label;
        /**
         * The case's writes copy or provision on first touch: its cell stops at a quarter of the
         * region's thin blocks, so first writes dominate. The others (linear, provisioned) run
         * for the whole cell: capped, a fast cell lasts a few tens of milliseconds and measures
         * its threads' start more than its writes.
         */
        final boolean firstWrites;

        Case(String label, boolean firstWrites) {
            this.label = label;
            this.firstWrites = firstWrites;
        }

        boolean selected() {
            return ONLY_CASES.isBlank() || Arrays.stream(ONLY_CASES.split(",")).anyMatch(w -> name().equalsIgnoreCase(w.strip()));
        }
    }

    /**
     * One measured run of one case: its workload, its first writes, the closing flush's time and
     * the process's CPU time (the flush included).
     */
    private record Cell(WorkloadResult result, long firstWrites, long flushNanos, long cpuNanos) {
        /** Writes per second of the workload and its closing flush together. */
        double iops() {
            return result.write().ios() * 1e9 / (result.elapsedNanos() + flushNanos);
        }

        double cpuMicrosPerWrite() {
            long writes = result.write().ios();
            return writes == 0 ? 0 : cpuNanos / 1000.0 / writes;
        }
    }

    /** The run with the median IOPS: on a shared machine single runs swing, the median less. */
    private static Cell median(List<Cell> runs) {
        List<Cell> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(Cell::iops));
        return sorted.get(sorted.size() / 2);
    }

    /** The devices under every volume: data, COW store and thin metadata alike. */
    private enum Devices {
        NULL("null disks", DiskConfig.DEFAULT, Case.values()),
        SLOW_FLUSH("null disks with a 0.5 ms cache flush", DiskConfig.writeback()
                .withLatency(new LatencyModel(0, 0, 500_000, 0)), Case.COW_ORIGIN, Case.THIN_SNAPSHOTTED);

        final String label;
        final DiskConfig config;
        final List<Case> cases;

        Devices(String label, DiskConfig config, Case... cases) {
            this.label = label;
            this.config = config;
            this.cases = List.of(cases);
        }
    }

    static void run() {
        long seconds = Bench.seconds(3);
        // BENCH_TABLES="1 worker" (or "4 workers", "0.5 ms", or a table's full name) runs only the
        // tables whose title contains every comma-separated phrase, for a quicker look.
        String only = System.getenv().getOrDefault("BENCH_TABLES", "");
        for (Case c : Case.values()) { // warm-up: every path compiled before anything is measured
            if (c.selected()) {
                measure(c, Devices.NULL, 1, 1);
            }
        }
        for (Devices devices : Devices.values()) {
            for (int workers : WORKERS) {
                String title = "thin: 4K random writes, " + workers + (workers == 1 ? " worker" : " workers")
                        + ", iodepth " + IO_DEPTH + ", " + devices.label + ", 64 KiB thin blocks, " + (REGION >> 30)
                        + " GiB region, " + seconds + " s or " + REGION / THIN_BLOCK / 4 + " writes a cell, median of "
                        + ROUNDS + " rounds in rotating order";
                if (!Arrays.stream(only.split(",")).allMatch(w -> w.isBlank() || title.contains(w.strip()))) {
                    continue;
                }
                // Cases take turns, round by round in rotating order, so a change in the machine's
                // load hits them alike; each cell reports its median round.
                Map<Case, List<Cell>> runs = new EnumMap<>(Case.class);
                List<Case> cases = devices.cases.stream().filter(Case::selected).toList();
                if (cases.isEmpty()) {
                    continue;
                }
                for (int round = 0; round < ROUNDS; round++) {
                    for (int i = 0; i < cases.size(); i++) {
                        Case c = cases.get((i + round) % cases.size());
                        runs.computeIfAbsent(c, k -> new ArrayList<>()).add(measure(c, devices, workers, seconds));
                    }
                }
                Map<Case, Cell> cells = new EnumMap<>(Case.class);
                runs.forEach((c, list) -> cells.put(c, median(list)));
                Table t = new Table(title,
                        "volume", "IOPS", "IOPS min-max", "mean latency (usec)", "CPU per write (usec)",
                        "first writes (%)", "vs linear", "vs classic snapshot origin");
                Cell linear = cells.get(Case.LINEAR);
                Cell cowCell = cells.get(Case.COW_ORIGIN);
                double cow = cowCell == null ? Double.NaN : cowCell.iops();
                for (Case c : cases) {
                    Cell cell = cells.get(c);
                    long writes = cell.result.write().ios();
                    DoubleSummaryStatistics spread = runs.get(c).stream().mapToDouble(Cell::iops).summaryStatistics();
                    t.row(c.label, cell.iops(), String.format(Locale.ROOT, "%,.0f-%,.0f", spread.getMin(), spread.getMax()),
                            cell.result.write().latency().meanNanos() / 1000.0, cell.cpuMicrosPerWrite(),
                            writes == 0 ? 0.0 : 100.0 * cell.firstWrites / writes,
                            linear == null ? "-" : (Object) (cell.iops() / linear.iops()), cell.iops() / cow);
                }
                t.print();
            }
        }
    }

    private static Cell measure(Case c, Devices devices, int workers, long seconds) {
        List<MappedDevice> made = new ArrayList<>();
        Map<String, BlockDevice> names = new HashMap<>();
        var config = Targets.config();
        try {
            Disk base = Disk.nullDisk("base", POOL_DATA, devices.config);
            names.put(base.name(), base);
            long sectors = REGION >> 9;
            BlockDevice target;
            PoolMetadata pmd = null;
            switch (c) {
                case LINEAR -> target = add(made, names, MappedDevice.create("lin", null, "0 " + sectors + " linear base 0\n",
                        names::get, config));
                case COW_ORIGIN -> {
                    Disk cow = Disk.nullDisk("cow", REGION + REGION / 256 + (1 << 20), devices.config);
                    names.put(cow.name(), cow);
                    MappedDevice vol = add(made, names, MappedDevice.create("vol", null, Snapshots.originTable("base", sectors),
                            names::get, config));
                    add(made, names, Snapshots.create(vol, "snap", cow, StoreType.PERSISTENT, CHUNK_SECTORS, names::get, config));
                    target = vol;
                }
                default -> {
                    Disk meta = Disk.memory("meta", 256L << 20, devices.config);
                    names.put(meta.name(), meta);
                    MappedDevice pool = add(made, names, MappedDevice.create("pool", null, Thins.poolTable("meta", "base",
                            POOL_DATA >> 9, THIN_BLOCK >> 9, 0, PoolFeatures.DEFAULT), names::get, config));
                    pool.message(0, "create_thin 0");
                    MappedDevice thin = add(made, names, MappedDevice.create("thin", null, Thins.thinTable("pool", 0, sectors),
                            names::get, config));
                    if (c != Case.THIN_FRESH) {
                        provision(thin);
                    }
                    if (c == Case.THIN_SNAPSHOTTED) {
                        Thins.snapshot(pool, thin, 0, 1, null);
                    }
                    pmd = Thins.pool(pool).orElseThrow().metadata();
                    target = thin;
                }
            }
            long before = pmd == null ? 0 : pmd.usage().usedDataBlocks();
            long cpuBefore = PROCESS.getProcessCpuTime();
            WorkloadSpec.Builder b = WorkloadSpec.builder(RwMode.RANDWRITE, 4096).jobs(workers).ioDepth(IO_DEPTH)
                    .size(REGION / workers).offsetIncrement(REGION / workers).runtime(seconds * WorkloadSpec.SECOND);
            WorkloadSpec spec = (c.firstWrites ? b.ioLimit(REGION / THIN_BLOCK / 4 / workers) : b).build();
            WorkloadResult r = new Workload(target, spec, Thread.ofPlatform().name("thin-bench-", 0).factory())
                    .execute(sample -> {});
            // A flush ends each cell, measured: it commits what the cell changed (a thin pool's
            // batched reference counts, a classic store's last exceptions), work a cell shorter
            // than the pool's 1 s commit period would otherwise leave out.
            long flushStart = System.nanoTime();
            SyncIo.flush(target);
            long flushNanos = System.nanoTime() - flushStart;
            long cpu = PROCESS.getProcessCpuTime() - cpuBefore;
            if (r.errors() > 0) {
                throw new IllegalStateException(c.label + ": " + r.errors() + " writes failed, the first: " + r.firstError());
            }
            long first = pmd == null ? 0 : pmd.usage().usedDataBlocks() - before;
            if (c == Case.COW_ORIGIN) {
                first = Snapshots.status((MappedDevice) names.get("snap")).orElseThrow().exceptions();
            }
            return new Cell(r, first, flushNanos, cpu);
        } catch (TableException e) {
            throw new IllegalStateException(e);
        } finally {
            for (MappedDevice d : made.reversed()) {
                d.remove();
            }
        }
    }

    /** Writes every block of the region whole, so each is mapped (and, for a snapshot, shared). */
    private static void provision(MappedDevice thin) {
        MemorySegment block = MemorySegment.ofArray(new byte[(int) THIN_BLOCK]);
        for (long off = 0; off < REGION; off += THIN_BLOCK) {
            SyncIo.write(thin, off, block, BioFlags.NONE);
        }
        SyncIo.flush(thin);
    }

    private static MappedDevice add(List<MappedDevice> made, Map<String, BlockDevice> names, MappedDevice d) {
        made.add(d);
        names.put(d.name(), d);
        return d;
    }
}
