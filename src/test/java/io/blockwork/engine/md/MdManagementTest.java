package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * mdadm-like management: create, fail, remove, add, replace, re-add, sync actions; and bad input,
 * which must name the field at fault and change nothing.
 */
@Tag("unit")
class MdManagementTest {

    private static final long MIB = 1L << 20;
    private final Map<String, BlockDevice> devices = new HashMap<>();
    private final MdArrays arrays = new MdArrays(devices::get);
    private final List<MdArray> created = new ArrayList<>();

    private Disk disk(String name, long bytes) {
        Disk d = Disk.memory(name, bytes, DiskConfig.DEFAULT);
        devices.put(name, d);
        return d;
    }

    private MdArray create(MdArraySpec spec, String... members) {
        MdArray a = arrays.create(spec.withSpeed(SpeedLimits.UNLIMITED).withAssumeClean(true), List.of(members));
        created.add(a);
        return a;
    }

    @AfterEach
    void stop() {
        created.forEach(MdArray::stop);
    }

    private static MemberState stateOf(MdArray a, String device) {
        return a.detail().members().stream().filter(m -> device.equals(m.device())).findFirst().orElseThrow().state();
    }

    /** What management may change, without the state words that move with time. */
    private static Object shape(MdArray a) {
        MdDetail d = a.detail();
        return List.of(d.members(), d.sizeBytes(), d.activeDevices(), d.spareDevices(), d.failedDevices(),
                d.inactiveReason() == null ? "" : d.inactiveReason());
    }

    private void assertRefused(ThrowingCallable call, Class<? extends RuntimeException> type, String field) {
        assertThatThrownBy(call).isInstanceOf(type)
                .satisfies(e -> assertThat(e instanceof MdArgumentException a ? a.field() : ((MdStateException) e).field())
                        .isEqualTo(field))
                .hasMessageStartingWith(field + ": ");
    }

    private void assertCreateRefused(ThrowingCallable call, Class<? extends RuntimeException> type, String field) {
        List<MdArray> before = arrays.list();
        assertRefused(call, type, field);
        assertThat(arrays.list()).isEqualTo(before);
        devices.values().forEach(d -> assertThat(arrays.holderOf(d)).as("%s claimed", d.name())
                .isIn((Object) null, "md0"));
    }

    @Test
    void badCreateRequestsNameTheFieldAndCreateNothing() {
        for (int i = 0; i < 5; i++) {
            disk("d" + i, 16 * MIB);
        }
        disk("tiny", 64 * 1024);
        create(MdArraySpec.of("md0", MdLevel.RAID1), "d0", "d1");

        assertCreateRefused(() -> MdArraySpec.parse("md1", "raid7", null, null, null, null), MdArgumentException.class, "level");
        assertCreateRefused(() -> arrays.create(MdArraySpec.of("md1", MdLevel.RAID1), List.of("d2")), MdArgumentException.class, "members");
        assertCreateRefused(() -> arrays.create(MdArraySpec.of("md1", MdLevel.RAID10).withLayout(Raid10Layout.parse("n3")),
                List.of("d2", "d3")), MdArgumentException.class, "members");
        assertCreateRefused(() -> MdArraySpec.parse("md1", "raid0", 3000L, null, null, null), MdArgumentException.class, "chunk");
        assertCreateRefused(() -> MdArraySpec.parse("md1", "raid1", 65536L, null, null, null), MdArgumentException.class, "chunk");
        assertCreateRefused(() -> MdArraySpec.parse("md1", "raid10", null, "q2", null, null), MdArgumentException.class, "layout");
        assertCreateRefused(() -> MdArraySpec.parse("md1", "raid1", null, "n2", null, null), MdArgumentException.class, "layout");
        assertCreateRefused(() -> MdArraySpec.parse("md1", "raid10", null, null, "eager", null), MdArgumentException.class, "strategies.flush");
        assertCreateRefused(() -> MdArraySpec.parse("md1", "raid10", null, null, null, "spin"), MdArgumentException.class, "strategies.barrier");
        assertCreateRefused(() -> MdArraySpec.parse("bad name!", "raid1", null, null, null, null), MdArgumentException.class, "name");
        assertCreateRefused(() -> arrays.create(MdArraySpec.of("md0", MdLevel.RAID1), List.of("d2", "d3")), MdStateException.class, "name");
        assertCreateRefused(() -> arrays.create(MdArraySpec.of("md1", MdLevel.RAID1), List.of("d2", "nope")), MdArgumentException.class, "members[1]");
        assertCreateRefused(() -> arrays.create(MdArraySpec.of("md1", MdLevel.RAID1), List.of("d1", "d2")), MdStateException.class, "members[0]");
        assertCreateRefused(() -> arrays.create(MdArraySpec.of("md1", MdLevel.RAID1), List.of("d2", "d2")), MdArgumentException.class, "members[1]");
        assertCreateRefused(() -> arrays.create(MdArraySpec.of("md1", MdLevel.RAID10), List.of("d2", "tiny")), MdArgumentException.class, "members");
        assertCreateRefused(() -> new SpeedLimits(0, 10), MdArgumentException.class, "speed.min");
        assertCreateRefused(() -> new SpeedLimits(100, 10), MdArgumentException.class, "speed.max");

        assertThat(arrays.list()).extracting(MdArray::name).containsExactly("md0");
        assertThat(arrays.create(MdArraySpec.of("md1", MdLevel.RAID1), List.of("d2", "d3")).name()).isEqualTo("md1");
        created.add(arrays.get("md1").orElseThrow());
    }

    @Test
    void refusedMemberChangesNameTheFieldAndChangeNothing() {
        for (int i = 0; i < 4; i++) {
            disk("d" + i, 16 * MIB);
        }
        disk("small", 4 * MIB);
        disk("spare", 16 * MIB);
        MdArray r10 = create(MdArraySpec.of("md0", MdLevel.RAID10).withChunk(64 * 1024), "d0", "d1", "d2", "d3");
        Object before = shape(r10);

        assertRefused(() -> r10.remove("d0"), MdStateException.class, "member");
        assertRefused(() -> r10.remove("nobody"), MdArgumentException.class, "member");
        assertRefused(() -> r10.fail("nobody"), MdArgumentException.class, "member");
        assertRefused(() -> arrays.add("md0", "small"), MdArgumentException.class, "device");
        assertRefused(() -> arrays.add("md0", "ghost"), MdArgumentException.class, "device");
        assertRefused(() -> r10.add(devices.get("d1")), MdStateException.class, "device");
        assertRefused(() -> r10.add(r10), MdArgumentException.class, "device");
        assertRefused(() -> r10.reAdd(devices.get("spare")), MdStateException.class, "device");
        assertRefused(() -> r10.sync("defrag"), MdArgumentException.class, "action");
        assertRefused(() -> arrays.replace("md0", "d0", "d1"), MdStateException.class, "device");
        assertThat(shape(r10)).isEqualTo(before);

        // The last in-sync copy of a mirror pair cannot be failed.
        r10.fail("d0");
        Object degraded = shape(r10);
        assertRefused(() -> r10.fail("d1"), MdStateException.class, "member");
        assertThat(shape(r10)).isEqualTo(degraded);
        assertThat(r10.inactiveReason()).isNull();
    }

    @Test
    void levelsWithoutRedundancyRefuseFailuresAndSpares() {
        disk("a", 8 * MIB);
        disk("b", 8 * MIB);
        disk("c", 8 * MIB);
        MdArray r0 = create(MdArraySpec.of("md0", MdLevel.RAID0), "a", "b");
        Object before = shape(r0);
        assertRefused(() -> r0.fail("a"), MdStateException.class, "member");
        assertRefused(() -> arrays.add("md0", "c"), MdStateException.class, "device");
        assertRefused(() -> r0.sync("check"), MdStateException.class, "action");
        assertThat(shape(r0)).isEqualTo(before);
    }

    @Test
    void failRemoveAndReAddRebuildsTheMemberInItsOldSlot() {
        disk("a", 16 * MIB);
        disk("b", 16 * MIB);
        MdArray r1 = create(MdArraySpec.of("md0", MdLevel.RAID1), "a", "b");
        MemorySegment data = random(1, 256 * 1024);
        SyncIo.write(r1, MIB, data);

        r1.fail("b");
        assertThat(stateOf(r1, "b")).isEqualTo(MemberState.FAULTY);
        assertThat(r1.detail().state()).contains(ArrayState.DEGRADED);
        SyncIo.write(r1, 2 * MIB, data);
        r1.remove("b");
        assertThat(r1.detail().members()).extracting(MdDetail.MemberDetail::state)
                .containsExactly(MemberState.IN_SYNC, MemberState.REMOVED);

        arrays.reAdd("md0", "b");
        await().atMost(Duration.ofSeconds(30)).until(() -> stateOf(r1, "b") == MemberState.IN_SYNC);
        assertThat(r1.detail().members().get(1).raidDevice()).isEqualTo(1);
        assertThat(r1.detail().state()).doesNotContain(ArrayState.DEGRADED);
        // The write made while b was out reached it through the rebuild.
        assertThat(read(devices.get("b"), 2 * MIB, data.byteSize()).mismatch(data)).isEqualTo(-1L);
    }

    @Test
    void aSpareWaitsThenRebuildsIntoTheSlotOfAFailedMember() {
        for (String n : List.of("a", "b", "s")) {
            disk(n, 16 * MIB);
        }
        MdArray r1 = create(MdArraySpec.of("md0", MdLevel.RAID1), "a", "b");
        arrays.add("md0", "s");
        assertThat(stateOf(r1, "s")).isEqualTo(MemberState.SPARE);
        assertThat(r1.detail().spareDevices()).isEqualTo(1);
        assertThat(r1.detail().members()).extracting(MdDetail.MemberDetail::role)
                .containsExactly(MemberRole.ACTIVE, MemberRole.ACTIVE, MemberRole.SPARE);

        SyncIo.write(r1, 0, random(2, 64 * 1024));
        r1.fail("a");
        await().atMost(Duration.ofSeconds(30)).until(() -> stateOf(r1, "s") == MemberState.IN_SYNC);
        MdDetail d = r1.detail();
        assertThat(d.members().getFirst().device()).isEqualTo("s");
        assertThat(d.members().getFirst().raidDevice()).isZero();
        assertThat(d.failedDevices()).isEqualTo(1);
        assertThat(read(devices.get("s"), 0, 64 * 1024).mismatch(random(2, 64 * 1024))).isEqualTo(-1L);

        r1.remove("a");
        assertThat(r1.detail().failedDevices()).isZero();
        assertThat(arrays.holderOf(devices.get("a"))).isNull();
    }

    @Test
    void replaceRebuildsBesideTheOldMemberThenRetiresIt() {
        for (String n : List.of("a", "b", "c", "d", "new")) {
            disk(n, 16 * MIB);
        }
        MdArray r10 = create(MdArraySpec.of("md0", MdLevel.RAID10).withChunk(64 * 1024), "a", "b", "c", "d");
        MemorySegment data = random(3, (int) MIB);
        SyncIo.write(r10, 0, data);
        arrays.replace("md0", "b", "new");
        assertThat(r10.detail().members()).filteredOn(m -> "new".equals(m.device())).singleElement()
                .satisfies(m -> assertThat(m.role()).isIn(MemberRole.REPLACEMENT, MemberRole.ACTIVE));
        await().atMost(Duration.ofSeconds(30)).until(() -> stateOf(r10, "new") == MemberState.IN_SYNC);
        MdDetail d = r10.detail();
        assertThat(d.members()).filteredOn(m -> "new".equals(m.device())).singleElement()
                .satisfies(m -> assertThat(m.raidDevice()).isEqualTo(1));
        assertThat(stateOf(r10, "b")).isEqualTo(MemberState.FAULTY);
        assertThat(d.members()).filteredOn(m -> "b".equals(m.device())).singleElement()
                .satisfies(m -> assertThat(m.faultReason()).contains("replaced by new"));
        assertThat(d.state()).doesNotContain(ArrayState.DEGRADED);
        // With a and new left of the first mirror pair, a can go and the data stays.
        r10.fail("a");
        assertThat(read(r10, 0, data.byteSize()).mismatch(data)).isEqualTo(-1L);
    }

    @Test
    void aReplacementTakesOverTheSlotWhenItsMemberFailsMidway() {
        for (String n : List.of("a", "b", "new")) {
            disk(n, 16 * MIB);
        }
        MdArray r1 = create(MdArraySpec.of("md0", MdLevel.RAID1), "a", "b");
        MemorySegment data = random(8, (int) (4 * MIB));
        SyncIo.write(r1, 0, data);
        r1.sync("pause");
        arrays.replace("md0", "b", "new");
        r1.fail("b");
        MdDetail d = r1.detail();
        assertThat(d.members().get(1).device()).isEqualTo("new");
        assertThat(d.members().get(1).role()).isEqualTo(MemberRole.ACTIVE);
        assertThat(d.members().get(1).state()).isEqualTo(MemberState.REBUILDING);
        r1.sync("resume");
        await().atMost(Duration.ofSeconds(30)).until(() -> stateOf(r1, "new") == MemberState.IN_SYNC);
        r1.fail("a");
        assertThat(read(r1, 0, data.byteSize()).mismatch(data)).isEqualTo(-1L);
    }

    @Test
    void detailReadsLikeMdadm() {
        for (int i = 0; i < 4; i++) {
            disk("d" + i, 16 * MIB + 4096);
        }
        MdArray a = create(MdArraySpec.parse("md0", "raid10", 64 * 1024L, "f2", "serial", "locked"), "d0", "d1", "d2", "d3");
        MdDetail d = a.detail();
        assertThat(d.level()).isEqualTo("raid10");
        assertThat(d.layout()).isEqualTo("f2");
        assertThat(d.layoutCode()).isEqualTo(0x201);
        assertThat(d.chunkBytes()).isEqualTo(64 * 1024);
        assertThat(d.usedDevSizeBytes()).isEqualTo(16 * MIB);
        assertThat(d.sizeBytes()).isEqualTo(32 * MIB).isEqualTo(a.sizeBytes());
        assertThat(d.raidDevices()).isEqualTo(4);
        assertThat(d.activeDevices()).isEqualTo(4);
        assertThat(d.strategies()).isEqualTo(new MdStrategies(FlushStrategy.SERIAL, BarrierStrategy.LOCKED));
        assertThat(d.state()).containsAnyOf(ArrayState.CLEAN, ArrayState.ACTIVE).doesNotContain(ArrayState.DEGRADED);
        assertThat(d.members()).extracting(MdDetail.MemberDetail::stateText).containsOnly("active sync");
        assertThat(d.sync().action()).isEqualTo(SyncAction.IDLE);
        SyncIo.write(a, 0, random(4, 4096));
        assertThat(a.detail().stateText()).isEqualTo("active");
        assertThat(a.lowerDevices()).hasSize(4);
    }

    static MemorySegment random(long seed, int bytes) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return MemorySegment.ofArray(b);
    }

    static MemorySegment read(BlockDevice d, long offset, long bytes) {
        MemorySegment into = MemorySegment.ofArray(new byte[(int) bytes]);
        SyncIo.read(d, offset, into);
        return into;
    }
}
