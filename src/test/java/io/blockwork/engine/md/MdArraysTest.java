package io.blockwork.engine.md;

import static io.blockwork.engine.md.MdManagementTest.random;
import static io.blockwork.engine.md.MdManagementTest.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The registry: names, one array per device, stop, and reassembly with members missing. */
@Tag("unit")
class MdArraysTest {

    private static final long MIB = 1L << 20;
    private final Map<String, BlockDevice> devices = new HashMap<>();
    private final MdArrays arrays = new MdArrays(devices::get);
    private MdArraySpec spec;
    private MemorySegment data;

    @BeforeEach
    void createAndFill() {
        for (String n : List.of("a", "b", "c", "d", "e")) {
            devices.put(n, Disk.memory(n, 8 * MIB, DiskConfig.DEFAULT));
        }
        spec = MdArraySpec.of("md0", MdLevel.RAID10).withChunk(64 * 1024).withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED);
        MdArray a = arrays.create(spec, List.of("a", "b", "c", "d"));
        data = random(9, (int) a.sizeBytes());
        SyncIo.write(a, 0, data);
    }

    @AfterEach
    void stopAll() {
        arrays.list().forEach(a -> arrays.stop(a.name()));
    }

    @Test
    void stopFreesTheMembersAndTheName() {
        assertThat(arrays.holderOf(devices.get("a"))).isEqualTo("md0");
        long size = arrays.get("md0").orElseThrow().detail().usedDevSizeBytes();
        arrays.stop("md0");
        assertThat(arrays.list()).isEmpty();
        assertThat(arrays.holderOf(devices.get("a"))).isNull();
        assertThatThrownBy(() -> arrays.stop("md0")).isInstanceOf(MdArgumentException.class).hasMessageStartingWith("name: ");
        assertThat(size).isEqualTo(8 * MIB);
    }

    @Test
    void reassemblyWithAMemberMissingComesUpDegradedWithTheData() {
        long used = arrays.get("md0").orElseThrow().detail().usedDevSizeBytes();
        arrays.stop("md0");
        MdArray a = arrays.assemble(spec, Arrays.asList("a", null, "c", "gone"), List.of(), used);
        MdDetail d = a.detail();
        assertThat(d.inactiveReason()).isNull();
        assertThat(d.state()).contains(ArrayState.DEGRADED);
        assertThat(d.members()).extracting(MdDetail.MemberDetail::state)
                .containsExactly(MemberState.IN_SYNC, MemberState.REMOVED, MemberState.IN_SYNC, MemberState.REMOVED);
        assertThat(d.sync().action()).isEqualTo(SyncAction.IDLE);
        assertThat(read(a, 0, data.byteSize()).mismatch(data)).isEqualTo(-1L);
        assertThat(arrays.mdstat()).contains("md0 : active raid10 c[2] a[0]").contains("[4/2] [U_U_]");
    }

    @Test
    void reassemblyWithAMirrorPairMissingIsInactiveWithTheReason() {
        arrays.stop("md0");
        MdArray a = arrays.assemble(spec, Arrays.asList(null, null, "c", "d"), List.of(), 0);
        assertThat(a.detail().state()).containsExactly(ArrayState.INACTIVE);
        assertThat(a.detail().inactiveReason()).isEqualTo("not enough members to assemble: slot(s) 0, 1 missing");
        MemorySegment buf = MemorySegment.ofArray(new byte[4096]);
        assertThat(SyncIo.execute(a, BioOp.READ, 0, 4096, BioFlags.NONE, buf)).isEqualTo(IoStatus.IO_ERROR);
        assertThatThrownBy(() -> arrays.add("md0", "e")).isInstanceOf(MdStateException.class).hasMessageStartingWith("device: ");
        assertThatThrownBy(() -> a.sync("check")).isInstanceOf(MdStateException.class).hasMessageStartingWith("action: ");
        arrays.stop("md0");
        // Spares offered to an array that cannot run stay free.
        MdArray again = arrays.assemble(spec, Arrays.asList(null, null, "c", "d"), List.of("e"), 0);
        assertThat(again.detail().spareDevices()).isZero();
        assertThat(arrays.holderOf(devices.get("e"))).isNull();
    }

    @Test
    void reassemblyWithASpareRebuildsTheMissingSlot() {
        arrays.stop("md0");
        MdArray a = arrays.assemble(spec, Arrays.asList("a", "b", null, "d"), List.of("e"), 0);
        await().atMost(Duration.ofSeconds(30)).until(() -> a.detail().activeDevices() == 4 && a.detail().sync().action() == SyncAction.IDLE);
        assertThat(a.detail().members().get(2).device()).isEqualTo("e");
        a.fail("d");
        assertThat(read(a, 0, data.byteSize()).mismatch(data)).isEqualTo(-1L);
    }

    @Test
    void levelsWithoutRedundancyRefuseToStartWithAMemberMissing() {
        arrays.stop("md0");
        assertThatThrownBy(() -> arrays.assemble(MdArraySpec.of("md9", MdLevel.RAID0), Arrays.asList("a", null), List.of(), 0))
                .isInstanceOf(MdArgumentException.class).hasMessageStartingWith("members[1]: ");
        assertThat(arrays.list()).isEmpty();
    }

    @Test
    void aDeviceJoinsOneArrayAtMost() {
        assertThatThrownBy(() -> arrays.create(MdArraySpec.of("md1", MdLevel.RAID1), List.of("e", "a")))
                .isInstanceOf(MdStateException.class).hasMessage("members[1]: a is already a member of md0");
        arrays.add("md0", "e");
        assertThatThrownBy(() -> arrays.create(MdArraySpec.of("md1", MdLevel.RAID1), List.of("e", "b")))
                .hasMessage("members[0]: e is already a member of md0");
        // An array can be a member of another (raid 1+0 by hand), once.
        devices.put("md0", arrays.get("md0").orElseThrow());
        devices.put("x", Disk.memory("x", 64 * MIB, DiskConfig.DEFAULT));
        arrays.create(MdArraySpec.of("md1", MdLevel.RAID1).withAssumeClean(true), List.of("md0", "x"));
        assertThatThrownBy(() -> arrays.create(MdArraySpec.of("md2", MdLevel.LINEAR), List.of("md0")))
                .hasMessage("members[0]: md0 is already a member of md1");
        assertThatThrownBy(() -> arrays.add("md0", "md1")).isInstanceOf(MdArgumentException.class)
                .hasMessageStartingWith("device: ");
    }
}
