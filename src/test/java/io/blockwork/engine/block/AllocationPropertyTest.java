package io.blockwork.engine.block;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.snapshot.StoreType;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.engine.dm.thin.ThinRig;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.Raid10Layout;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.engine.md.metadata.MetadataSpec;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Tag;

/**
 * {@link BlockDevice#allocation} across random write, discard and write-zeroes sequences on every
 * stack that answers it. A model keeps, per 4 KiB page, whether data was written there since the
 * page was last wholly discarded or zeroed. On every stack the answer must call each data page
 * data (never a hole where data is) and every hole must read back as zeros; on memory and file
 * disks, and the layers that map them one to one or mirror them (md linear, raid0/1/10, dm
 * linear/striped, a volume's origin), it must equal the model exactly. Queries also start and
 * end at random sectors and run with a small extent limit, so partial answers are checked too.
 * The md stacks carry v1.2 superblocks, as the API makes them by default: their data starts at a
 * data offset on each member (metadata none is the same code with an offset of 0).
 */
@Tag("unit")
class AllocationPropertyTest {

    private static final int PAGE = 4096;
    private static final long SIZE = 2L << 20;

    /** The stacks, and whether their answer is exact. */
    enum Stack {
        MEMORY(true), FILE(true), MD_LINEAR(true), RAID0(true), RAID1(true), RAID10(true), RAID5(false),
        DM_LINEAR(true), DM_STRIPED(true), VOLUME_ON_RAID10(true),
        /** Writes go to the origin; the snapshot is checked (safe) and the origin (exact). */
        ORIGIN_WITH_SNAPSHOT(true),
        /** A thin volume: a 64 KiB block is data once any of it is written (safe, not exact to the page). */
        THIN(false),
        /** Writes go to a thin origin after a thin snapshot of it; both checked (safe). */
        THIN_ORIGIN_WITH_SNAPSHOT(false);

        final boolean exact;

        Stack(boolean exact) {
            this.exact = exact;
        }
    }

    /** One operation: {@code kind} 0 write, 1 discard, 2 write-zeroes; offsets in sectors. */
    record Op(int kind, long sector, int sectors, boolean pageAligned) {}

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = Combinators.combine(Arbitraries.integers().between(0, 2),
                Arbitraries.longs().between(0, SIZE / 512 - 1), Arbitraries.integers().between(1, 96),
                Arbitraries.of(true, false))
                .as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(40);
    }

    /** Every stack sees each generated sequence, so none goes untested in a run. */
    @Property(tries = 20)
    void neverAHoleWhereDataIsAndExactWhereTheStackCanBe(@ForAll("ops") List<Op> ops,
                                                         @ForAll @IntRange(min = 1, max = 6) int limit,
                                                         @ForAll long seed) throws IOException {
        for (Stack stack : Stack.values()) {
            try {
                run(stack, ops, limit, seed);
            } catch (AssertionError e) {
                throw new AssertionError("on " + stack + ": " + e.getMessage(), e);
            }
        }
    }

    private static void run(Stack stack, List<Op> ops, int limit, long seed) throws IOException {
        Path dir = Files.createTempDirectory("alloc");
        Rig rig = new Rig(stack, dir);
        try {
            boolean[] model = rig.frozen != null ? rig.frozen.clone() : new boolean[(int) (rig.top.sizeBytes() / PAGE)];
            Random r = new Random(seed);
            for (Op op : ops) {
                apply(rig.top, model, op, r);
            }
            BlockDevice queried = rig.snapshot == null ? rig.top : rig.snapshot;
            boolean[] expected = rig.snapshot == null ? model : rig.frozen;
            // A snapshot calls copied chunks data whatever they hold: safe, not exact.
            boolean exact = stack.exact && rig.snapshot == null;
            check(queried, expected, 0, queried.sizeBytes(), Integer.MAX_VALUE, exact);
            long from = 512L * r.nextInt((int) (queried.sizeBytes() / 512));
            long len = 512L * (1 + r.nextInt((int) ((queried.sizeBytes() - from) / 512)));
            check(queried, expected, from, len, limit, exact);
            if (rig.snapshot != null) {
                check(rig.top, model, 0, rig.top.sizeBytes(), Integer.MAX_VALUE, stack.exact);
            }
        } finally {
            rig.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void apply(BlockDevice d, boolean[] model, Op op, Random r) {
        long offset = op.pageAligned() ? op.sector() * 512 / PAGE * PAGE : op.sector() * 512;
        long length = Math.min(op.pageAligned() ? (long) op.sectors() / 8 * PAGE + PAGE : op.sectors() * 512L,
                d.sizeBytes() - offset);
        switch (op.kind()) {
            case 0 -> {
                byte[] data = new byte[(int) length];
                r.nextBytes(data);
                data[0] = 1; // never an all-zero write: the model calls it data either way
                SyncIo.write(d, offset, MemorySegment.ofArray(data));
                for (long p = offset / PAGE; p * PAGE < offset + length; p++) {
                    model[(int) p] = true;
                }
            }
            case 1, 2 -> {
                if (op.kind() == 1) {
                    SyncIo.discard(d, offset, length);
                } else {
                    SyncIo.writeZeroes(d, offset, length);
                }
                for (long p = (offset + PAGE - 1) / PAGE; (p + 1) * PAGE <= offset + length; p++) {
                    model[(int) p] = false;
                }
            }
            default -> throw new IllegalArgumentException("op " + op.kind());
        }
    }

    private static void check(BlockDevice d, boolean[] model, long from, long length, int limit, boolean exact) {
        Extents out = new Extents(limit);
        d.allocation(from, length, out);
        assertThat(out.covered()).as("%s covers at most what was asked", d).isLessThanOrEqualTo(length);
        if (!out.stopped()) {
            assertThat(out.covered()).as("%s: an answer that did not stop covers the range", d).isEqualTo(length);
        }
        assertThat(out.covered()).as("%s: at least one extent", d).isPositive();
        long pos = from;
        for (Extents.Extent e : out.extents()) {
            assertThat(e.length()).isPositive();
            for (long p = pos / PAGE; p * PAGE < pos + e.length(); p++) {
                boolean data = model[(int) p];
                if (e.state() == Allocation.HOLE) {
                    assertThat(data).as("%s: page %d (bytes %d+%d) has data but is called a hole", d, p, pos, e.length())
                            .isFalse();
                } else if (exact) {
                    assertThat(data).as("%s: page %d is a hole but is called data", d, p).isTrue();
                }
            }
            if (e.state() == Allocation.HOLE) {
                byte[] back = new byte[(int) e.length()];
                SyncIo.read(d, pos, MemorySegment.ofArray(back));
                int firstNonZero = Arrays.mismatch(back, new byte[back.length]);
                assertThat(firstNonZero).as("%s: first non-zero byte in the hole at %d+%d", d, pos, e.length())
                        .isEqualTo(-1);
            }
            pos += e.length();
        }
    }

    /** A stack over memory disks (or a file), its top device, and for the snapshot case the snapshot. */
    private static final class Rig {
        final DmTestDevices devs = new DmTestDevices();
        final List<Runnable> closers = new ArrayList<>();
        final BlockDevice top;
        BlockDevice snapshot;
        boolean[] frozen;

        Rig(Stack stack, Path dir) {
            top = switch (stack) {
                case MEMORY -> disk("d0", SIZE);
                case FILE -> {
                    Disk f = Disk.createFile("f0", dir.resolve("f0.img"), SIZE, DiskConfig.writeback());
                    closers.add(f::close);
                    yield f;
                }
                case MD_LINEAR -> md(MdArraySpec.of("lin", MdLevel.LINEAR), 3, SIZE / 2);
                case RAID0 -> md(MdArraySpec.of("r0", MdLevel.RAID0).withChunk(16 << 10), 3, SIZE / 2);
                case RAID1 -> md(MdArraySpec.of("r1", MdLevel.RAID1), 2, SIZE);
                case RAID10 -> md(raid10(), 4, SIZE / 2);
                case RAID5 -> md(MdArraySpec.parse("r5", "raid5", 16L << 10, "2", null, null).withStripeCacheSize(16), 4,
                        SIZE / 2);
                case DM_LINEAR -> {
                    disk("d0", SIZE);
                    disk("d1", SIZE);
                    long half = SIZE / 512 / 2;
                    yield devs.create("lin", "0 " + half + " linear d1 " + half + "\n" + half + " " + half + " linear d0 8\n");
                }
                case DM_STRIPED -> {
                    disk("d0", SIZE);
                    disk("d1", SIZE);
                    yield devs.create("str", "0 " + (SIZE / 512) + " striped 2 32 d0 0 d1 0\n");
                }
                case VOLUME_ON_RAID10 -> {
                    devs.add(md(raid10(), 4, SIZE));
                    yield devs.create("vol", "0 " + (SIZE / 512) + " linear r10 2048\n");
                }
                case ORIGIN_WITH_SNAPSHOT -> origin();
                case THIN -> thinPool().newThin("thin", 1, SIZE);
                case THIN_ORIGIN_WITH_SNAPSHOT -> {
                    ThinRig pool = thinPool();
                    MappedDevice volume = pool.newThin("thin", 1, SIZE);
                    frozen = written(volume);
                    pool.snapshot(volume, 1, 2);
                    snapshot = pool.thin("thin-snap", 2, SIZE);
                    yield volume;
                }
            };
        }

        private MappedDevice origin() {
            disk("base", SIZE);
            disk("cow", SIZE * 2);
            MappedDevice volume = devs.create("vol", Snapshots.originTable("base", SIZE / 512));
            frozen = written(volume);
            try {
                snapshot = devs.add(Snapshots.create(volume, "snap", devs.find("cow"), StoreType.TRANSIENT, 16, devs,
                        devs.config()));
            } catch (TableException e) {
                throw new AssertionError(e);
            }
            return volume;
        }

        /** Something to keep: data in the first half, which a snapshot then freezes. */
        private static boolean[] written(BlockDevice volume) {
            boolean[] pages = new boolean[(int) (SIZE / PAGE)];
            Random r = new Random(7);
            for (int i = 0; i < 40; i++) {
                apply(volume, pages, new Op(0, r.nextInt((int) (SIZE / 1024)), 1 + r.nextInt(24), r.nextBoolean()), r);
            }
            return pages;
        }

        /** A thin pool with room for everything the sequences write to a volume and its snapshot. */
        private ThinRig thinPool() {
            ThinRig pool = new ThinRig(4L << 20, 2 * SIZE + (1 << 20));
            closers.add(pool::close);
            return pool;
        }

        private static MdArraySpec raid10() {
            return MdArraySpec.of("r10", MdLevel.RAID10).withLayout(Raid10Layout.parse("n2")).withChunk(16 << 10);
        }

        private Disk disk(String name, long bytes) {
            return devs.disk(name, bytes, DiskConfig.DEFAULT);
        }

        private MdArray md(MdArraySpec spec, int members, long each) {
            List<Disk> disks = new ArrayList<>();
            for (int i = 0; i < members; i++) {
                // room for the superblock, bitmap and headroom before the data (1 MiB on disks this small)
                disks.add(disk(spec.name() + "-m" + i, each + (1 << 20)));
            }
            MdArraySpec withSuperblocks = spec.withMetadata(MetadataSpec.v12(spec.level().redundant()
                    ? new MetadataSpec.Bitmap(64 << 10, MetadataSpec.Bitmap.DEFAULT_DAEMON_SLEEP) : null));
            MdArray a = MdArray.create(withSuperblocks.withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED), disks);
            closers.add(a::stop);
            return a;
        }

        void close() {
            closers.reversed().forEach(Runnable::run);
        }
    }
}
