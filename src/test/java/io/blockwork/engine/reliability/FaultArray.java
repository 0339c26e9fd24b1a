package io.blockwork.engine.reliability;

import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.targets.mirror.MirrorTarget;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdDetail;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.MemberState;
import io.blockwork.engine.md.Raid10Layout;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.engine.md.SyncAction;
import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * An array whose members are mapped devices ({@code m0}, {@code m1}, …, each {@code linear} over a
 * writeback disk of its own), so that a fault is injected into a member the way lvm2's test
 * helpers do ({@code error_dev}, {@code delay_dev}): by swapping the member's table, live. The
 * levels of acceptance 3: md raid1, raid10 (near 2), raid0 and linear, and dm mirror.
 *
 * <p>Member tables use their own clock, running {@value #CLOCK_SPEED} times faster than real time,
 * so that flakey's intervals (whole seconds) fit a test that runs for a second or so: up 99,
 * down 1 is 9.9 ms up and 0.1 ms down.
 */
final class FaultArray {

    static final long CLOCK_SPEED = 10_000;
    static final long MEMBER_SECTORS = 32768;
    private static final Duration LONG = Duration.ofMinutes(2);

    final String level;
    final DmTestDevices devs = new DmTestDevices();
    final List<MappedDevice> members = new ArrayList<>();
    final BlockDevice array;
    private final DmConfig memberConfig;

    FaultArray(String level) {
        this.level = level;
        long t0 = System.nanoTime();
        memberConfig = devs.config().withClock(() -> (System.nanoTime() - t0) * CLOCK_SPEED);
        int n = level.equals("raid10") ? 4 : 2;
        for (int i = 0; i < n; i++) {
            devs.disk("d" + i, MEMBER_SECTORS << 9);
            members.add(devs.add(MappedDevice.create("m" + i, null, linear(i), devs, memberConfig)));
        }
        array = switch (level) {
            case "raid1" -> md(MdArraySpec.of("r1", MdLevel.RAID1));
            case "raid10" -> md(MdArraySpec.of("r10", MdLevel.RAID10).withLayout(Raid10Layout.parse("n2")).withChunk(64 << 10));
            case "raid0" -> md(MdArraySpec.of("r0", MdLevel.RAID0).withChunk(64 << 10));
            case "linear" -> md(MdArraySpec.of("lin", MdLevel.LINEAR));
            case "mirror" -> devs.create("mir", mirrorTable());
            default -> throw new IllegalArgumentException(level);
        };
    }

    static boolean redundant(String level) {
        return List.of("raid1", "raid10", "mirror").contains(level);
    }

    private MdArray md(MdArraySpec spec) {
        return MdArray.create(spec.withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED), List.copyOf(members));
    }

    private static String mirrorTable() {
        return "0 " + MEMBER_SECTORS + " mirror core 2 1024 nosync 2 m0 0 m1 0 1 handle_errors\n";
    }

    private static String linear(int member) {
        return "0 " + MEMBER_SECTORS + " linear d" + member + " 0\n";
    }

    /**
     * The table a fault puts on member {@code i}: {@code error} fails all I/O or, at 1 %, a random
     * 1 % of it (flakey's random errors); {@code flakey} is down (every I/O fails) all the time or
     * 1 % of the time; {@code delay} delays every I/O by 20 ms, on the whole member or on a band
     * of about 1 % of the sectors the workload uses there.
     */
    static String faultTable(String fault, int percent, int member, long usedSectors) {
        String d = "d" + member;
        long all = MEMBER_SECTORS;
        return switch (fault + " " + percent) {
            case "error 100" -> "0 " + all + " error\n";
            case "error 1" -> "0 " + all + " flakey " + d + " 0 0 1 4 random_read_error 10000000 random_write_error 10000000\n";
            case "flakey 100" -> "0 " + all + " flakey " + d + " 0 0 1\n";
            case "flakey 1" -> "0 " + all + " flakey " + d + " 0 99 1\n";
            case "delay 100" -> "0 " + all + " delay " + d + " 0 20\n";
            case "delay 1" -> {
                long band = Math.max(8, (usedSectors / 100 + 7) / 8 * 8);
                yield "0 " + band + " delay " + d + " 0 20\n" + band + " " + (all - band) + " linear " + d + " " + band + "\n";
            }
            default -> throw new IllegalArgumentException(fault + " " + percent);
        };
    }

    /** Swaps {@code table} into member {@code i} while I/O goes on (load, then resume: suspend and swap). */
    void swap(int i, String table) {
        MappedDevice m = members.get(i);
        m.load(table, devs);
        m.resume();
    }

    void heal(int i) {
        swap(i, linear(i));
    }

    /** How many of member 0's sectors hold the first {@code bytes} of the array. */
    long usedOnMember0(long bytes) {
        long sectors = bytes >> 9;
        return switch (level) {
            case "raid10", "raid0" -> sectors / 2;
            default -> sectors;
        };
    }

    /** SHA-256 of the whole array, read in 1 MiB pieces. */
    String checksum() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            MemorySegment buf = MemorySegment.ofArray(new byte[1 << 20]);
            for (long at = 0; at < array.sizeBytes(); at += buf.byteSize()) {
                MemorySegment piece = buf.asSlice(0, Math.min(buf.byteSize(), array.sizeBytes() - at));
                SyncIo.read(array, at, piece);
                sha.update(piece.asByteBuffer());
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Fails member {@code i} as its level does it by hand: {@code mdadm --fail} for md, an error
     * table under the leg for the mirror (which then reads from the other leg).
     */
    void fail(int i) {
        if (array instanceof MdArray md) {
            md.fail(members.get(i).name());
        } else {
            swap(i, "0 " + MEMBER_SECTORS + " error\n");
        }
    }

    /**
     * Brings member {@code i} back in sync: md removes it and adds it again, rebuilding it; the
     * mirror gets its leg back and a fresh table ({@code nosync}: nothing was written meanwhile).
     */
    void restore(int i) {
        if (array instanceof MdArray md) {
            String name = members.get(i).name();
            md.remove(name);
            md.add(members.get(i));
            await().atMost(LONG).until(() -> state(md, name) == MemberState.IN_SYNC
                    && md.detail().sync().action() == SyncAction.IDLE);
        } else {
            heal(i);
            MappedDevice mirror = (MappedDevice) array;
            mirror.load(mirrorTable(), devs);
            mirror.resume();
        }
    }

    /** How the array sees member 0 now: md's member state, or the mirror's leg health letters. */
    String member0() {
        if (array instanceof MdArray md) {
            return "m0 " + state(md, "m0").name().toLowerCase(java.util.Locale.ROOT);
        }
        if (array instanceof MappedDevice m && m.liveTable().entries().getFirst().target() instanceof MirrorTarget t) {
            return "legs " + t.health();
        }
        return "";
    }

    private static MemberState state(MdArray md, String device) {
        return md.detail().members().stream().filter(m -> device.equals(m.device())).findFirst()
                .map(MdDetail.MemberDetail::state).orElse(MemberState.REMOVED);
    }

    void close() {
        if (array instanceof MdArray md) {
            md.stop();
        } else if (array instanceof MappedDevice m) {
            m.remove();
        }
        members.forEach(MappedDevice::remove);
    }
}
