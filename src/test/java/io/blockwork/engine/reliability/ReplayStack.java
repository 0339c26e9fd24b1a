package io.blockwork.engine.reliability;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.snapshot.PersistentStore;
import io.blockwork.engine.dm.snapshot.SnapshotException;
import io.blockwork.engine.dm.snapshot.StoreType;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.Raid10Geometry;
import io.blockwork.engine.md.Raid10Layout;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.engine.workload.VerifyPattern;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A device stack under test, built on slices of one device {@code lw} (a log-writes device), so
 * that one log records, in durability order, everything the stack wrote to all its members. For
 * each byte the client writes, {@link #copies} says where on {@code lw} (so on a replayed image
 * of it) every copy must be; a stack may add a check of its own at each point ({@link #extraCheck}).
 */
abstract class ReplayStack {

    /** Sectors per slice of {@code lw}: 8 MiB, one member each. */
    static final long SLICE = 16384;

    final String kind;
    final List<Runnable> cleanup = new ArrayList<>();
    BlockDevice top;

    ReplayStack(String kind) {
        this.kind = kind;
    }

    /** Byte offsets on {@code lw} of every copy of the client's byte {@code offset}. */
    abstract long[] copies(long offset);

    /** Before the workload: a baseline, a snapshot, whatever the stack needs. */
    void prepare(VerifyingClient client) {}

    /** Losses this stack finds on the image at a point, beyond the copies' check; each described in {@code out}. */
    long extraCheck(Disk image, VerifyingClient client, List<String> out) {
        return 0;
    }

    void close() {
        cleanup.reversed().forEach(Runnable::run);
    }

    @Override
    public String toString() {
        return kind;
    }

    static MappedDevice slice(DmTestDevices devs, String name, long at) {
        return devs.create(name, "0 " + SLICE + " linear lw " + at + "\n");
    }

    /** The stacks of acceptance 2: linear, raid1, raid10, mirror, a persistent snapshot's origin, a pool volume. */
    static List<String> kinds() {
        return List.of("linear", "raid1", "raid10", "mirror", "snapshot-origin", "volume");
    }

    static ReplayStack build(String kind, DmTestDevices devs) {
        return switch (kind) {
            case "linear" -> linear(devs);
            case "raid1" -> raid1(devs);
            case "raid10" -> raid10(devs);
            case "mirror" -> mirror(devs);
            case "snapshot-origin" -> snapshotOrigin(devs);
            case "volume" -> volume(devs);
            default -> throw new IllegalArgumentException(kind);
        };
    }

    /** dm linear onto the second slice. */
    static ReplayStack linear(DmTestDevices devs) {
        ReplayStack s = new ReplayStack("linear") {
            @Override
            long[] copies(long offset) {
                return new long[] {(SLICE << 9) + offset};
            }
        };
        s.top = devs.create("top", "0 " + SLICE + " linear lw " + SLICE + "\n");
        return s;
    }

    /** md raid1 over two slices: both copies, at the same offset of each member. */
    static ReplayStack raid1(DmTestDevices devs) {
        ReplayStack s = new ReplayStack("raid1") {
            @Override
            long[] copies(long offset) {
                return new long[] {offset, (SLICE << 9) + offset};
            }
        };
        s.top = array(s, MdArraySpec.of("r1", MdLevel.RAID1), List.of(slice(devs, "m0", 0), slice(devs, "m1", SLICE)));
        return s;
    }

    /** md raid10, near 2, 64 KiB chunks, over four slices: both copies where raid10's placement puts them. */
    static ReplayStack raid10(DmTestDevices devs) {
        Raid10Layout layout = Raid10Layout.parse("n2");
        Raid10Geometry geometry = Raid10Geometry.of(layout, 4, 128, SLICE);
        ReplayStack s = new ReplayStack("raid10") {
            @Override
            long[] copies(long offset) {
                int[] dev = new int[geometry.copies()];
                long[] sector = new long[geometry.copies()];
                geometry.findPhys(offset >> 9, dev, sector);
                long[] out = new long[dev.length];
                for (int i = 0; i < dev.length; i++) {
                    out[i] = ((dev[i] * SLICE + sector[i]) << 9) + (offset & 511);
                }
                return out;
            }
        };
        List<BlockDevice> members = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            members.add(slice(devs, "m" + i, i * SLICE));
        }
        s.top = array(s, MdArraySpec.of("r10", MdLevel.RAID10).withLayout(layout).withChunk(64 * 1024), members);
        return s;
    }

    private static MdArray array(ReplayStack s, MdArraySpec spec, List<BlockDevice> members) {
        MdArray a = MdArray.create(spec.withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED), members);
        s.cleanup.add(a::stop);
        return a;
    }

    /** dm mirror with a disk region log, two legs: both legs hold every write. */
    static ReplayStack mirror(DmTestDevices devs) {
        ReplayStack s = new ReplayStack("mirror") {
            @Override
            long[] copies(long offset) {
                return new long[] {offset, (SLICE << 9) + offset};
            }
        };
        slice(devs, "m0", 0);
        slice(devs, "m1", SLICE);
        devs.create("mlog", "0 2048 linear lw " + 2 * SLICE + "\n");
        MappedDevice m = devs.create("mir", "0 " + SLICE + " mirror disk 3 mlog 1024 nosync 2 m0 0 m1 0 1 handle_errors\n");
        s.cleanup.add(m::remove);
        s.top = m;
        return s;
    }

    /**
     * A snapshot-origin over slice 0 ({@code real}) with a persistent snapshot whose COW device is
     * slice 1, 4 KiB chunks. The client's baseline (generation 1 everywhere) is written before the
     * snapshot is taken, so at every point the snapshot, rebuilt from the image's COW store, must
     * still read the baseline while the origin holds every durable write.
     */
    static ReplayStack snapshotOrigin(DmTestDevices devs) {
        slice(devs, "real", 0);
        BlockDevice cow = slice(devs, "cow", SLICE);
        MappedDevice origin = devs.create("origin", Snapshots.originTable("real", SLICE));
        ReplayStack s = new ReplayStack("snapshot-origin") {
            private DmTestDevices views;

            @Override
            long[] copies(long offset) {
                return new long[] {offset};
            }

            @Override
            void prepare(VerifyingClient client) {
                client.prefill();
                MappedDevice snap = Snapshots.create(origin, "snap", cow, StoreType.PERSISTENT, 8, devs, devs.config());
                cleanup.add(snap::remove);
            }

            @Override
            long extraCheck(Disk image, VerifyingClient client, List<String> out) {
                if (views == null) {
                    views = new DmTestDevices();
                    views.add(image);
                    views.create("ireal", "0 " + SLICE + " linear " + image.name() + " 0\n");
                    views.create("icow", "0 " + SLICE + " linear " + image.name() + " " + SLICE + "\n");
                }
                BlockDevice icow = views.find("icow");
                MemorySegment head = MemorySegment.ofArray(new byte[512]);
                SyncIo.read(icow, 0, head);
                if (head.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0) == 0) {
                    return 0; // the snapshot is not taken yet at this point
                }
                Map<Long, Long> exceptions = new HashMap<>();
                try {
                    PersistentStore.open(icow, StoreType.PERSISTENT, 0, views.find("ireal"), exceptions::put);
                } catch (SnapshotException e) {
                    out.add("the COW store does not open: " + e.getMessage());
                    return 1;
                }
                long lost = 0;
                MemorySegment buf = MemorySegment.ofArray(new byte[VerifyingClient.BLOCK]);
                MemorySegment scratch = MemorySegment.ofArray(new byte[VerifyingClient.BLOCK]);
                for (int b = 0; b < client.blocks(); b++) {
                    long chunk = client.offset(b) / VerifyingClient.BLOCK;
                    Long moved = exceptions.get(chunk);
                    BlockDevice from = moved == null ? views.find("ireal") : icow;
                    SyncIo.read(from, moved == null ? client.offset(b) : moved * VerifyingClient.BLOCK, buf);
                    long gen = VerifyPattern.generationOf(buf, scratch, client.seed(), client.offset(b));
                    if (gen != 1) {
                        lost++;
                        if (out.size() < 8) {
                            out.add("snapshot block " + b + " reads " + (gen < 0 ? "data no write put there" : "generation " + gen)
                                    + " instead of the baseline" + (moved == null ? "" : " (exception to COW chunk " + moved + ")"));
                        }
                    }
                }
                return lost;
            }
        };
        s.cleanup.add(origin::remove);
        s.top = origin;
        return s;
    }

    /** A pool volume: three 256 KiB-extent segments of a pool device, out of order, as the service maps them. */
    static ReplayStack volume(DmTestDevices devs) {
        devs.create("pool", "0 " + 4 * SLICE + " linear lw 0\n");
        long[][] segments = {{0, 1024, 8192}, {1024, 512, 2048}, {1536, 512, 20480}};
        StringBuilder table = new StringBuilder();
        for (long[] g : segments) {
            table.append(g[0]).append(' ').append(g[1]).append(" linear pool ").append(g[2]).append('\n');
        }
        ReplayStack s = new ReplayStack("volume") {
            @Override
            long[] copies(long offset) {
                long sector = offset >> 9;
                for (long[] g : segments) {
                    if (sector >= g[0] && sector < g[0] + g[1]) {
                        return new long[] {((g[2] + sector - g[0]) << 9) + (offset & 511)};
                    }
                }
                throw new IllegalArgumentException("offset " + offset + " is past the volume");
            }
        };
        s.top = devs.create("vol", table.toString());
        return s;
    }
}
