package io.blockwork.engine.dm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.dm.targets.Targets;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The dmsetup lifecycle of a mapped device, apart from suspend (see SuspendResumeTest). */
@Tag("unit")
class MappedDeviceTest {

    private final DmTestDevices devs = new DmTestDevices();
    private final Disk d0 = devs.disk("d0", 8L << 20);
    private final Disk d1 = devs.disk("d1", 8L << 20);

    @Test
    void createMakesTheTableLiveAndSizeLimitsAndLowerDevicesFollowIt() {
        MappedDevice d = MappedDevice.create("vol", "uuid-1", "0 1024 linear d0 0\n1024 1024 linear d1 0\n", devs, devs.config());
        assertThat(d.sizeBytes()).isEqualTo(2048 * 512L);
        assertThat(d.lowerDevices()).containsExactly(d0, d1);
        assertThat(d.uuid()).isEqualTo("uuid-1");
        DeviceInfo info = d.info();
        assertThat(info).isEqualTo(new DeviceInfo("vol", "uuid-1", DeviceInfo.State.ACTIVE, 0, 0, true, false, 2, 2048));
        assertThat(info.text()).isEqualTo("""
                Name:              vol
                State:             ACTIVE
                Tables present:    LIVE
                Open count:        0
                Event number:      0
                Number of targets: 2
                UUID: uuid-1
                """);
        assertThat(d.limits().boundaryBytes()).as("two 1024-sector targets: the core splits at 512 KiB").isEqualTo(1024 * 512L);
    }

    @Test
    void aDeviceCreatedWithoutATableHasNoSizeUntilOneIsLoadedAndResumed() throws Exception {
        MappedDevice d = MappedDevice.create("empty", null, (String) null, devs, devs.config());
        assertThat(d.sizeBytes()).isZero();
        assertThat(d.info().liveTable()).isFalse();
        assertThat(SyncIo.execute(d, BioOp.FLUSH, 0, 0, BioFlags.NONE, null)).isEqualTo(IoStatus.IO_ERROR);
        d.load("0 64 zero\n", devs);
        assertThat(d.info().text()).contains("Tables present:    INACTIVE");
        d.resume();
        assertThat(d.sizeBytes()).isEqualTo(64 * 512L);
        assertThat(d.info().eventNumber()).isEqualTo(1);
    }

    @Test
    void aRefusedCreateLeavesNoDevice() {
        assertThatThrownBy(() -> MappedDevice.create("vol", null, "0 8 linear nope 0\n", devs, devs.config()))
                .isInstanceOf(TableException.class).hasMessage("line 1: linear: Device lookup failed: no device named 'nope'");
        assertThatThrownBy(() -> MappedDevice.create("has space", null, "0 8 zero\n", devs, devs.config()))
                .isInstanceOf(DmException.class).hasMessageContaining("invalid device name 'has space'");
        assertThatThrownBy(() -> MappedDevice.create("a/b", null, "0 8 zero\n", devs, devs.config()))
                .hasMessageContaining("invalid device name");
    }

    @Test
    void aTableBuiltFromTargetObjectsIsTheSameAsFromText() {
        TableSpec listed = TableSpec.of(List.of(
                new TableSpec.TargetObject(0, 1024, "linear", List.of("d0", "0")),
                new TableSpec.TargetObject(1024, 1024, "striped", List.of("2 64 d0 1024 d1 0"))));
        MappedDevice a = MappedDevice.create("a", null, listed, devs, devs.config());
        MappedDevice b = devs.create("b", "0 1024 linear d0 0\n1024 1024 striped 2 64 d0 1024 d1 0\n");
        assertThat(a.tableText()).isEqualTo(b.tableText());
    }

    @Test
    void clearDropsOnlyTheInactiveTable() throws Exception {
        MappedDevice d = devs.create("vol", "0 1024 linear d0 0\n");
        d.load("0 2048 linear d1 0\n", devs);
        assertThat(d.inactiveTableText()).isEqualTo("0 2048 linear d1 0\n");
        assertThat(d.referencedDevices()).containsExactly(d0, d1);
        d.clear();
        assertThat(d.info().inactiveTable()).isFalse();
        assertThat(d.referencedDevices()).containsExactly(d0);
        d.resume();
        assertThat(d.tableText()).isEqualTo("0 1024 linear d0 0\n");
        assertThat(d.info().eventNumber()).as("no swap happened").isZero();
    }

    @Test
    void renameAndUuid() {
        MappedDevice d = devs.create("vol", "0 8 zero\n");
        d.rename("vol2");
        assertThat(d.name()).isEqualTo("vol2");
        assertThatThrownBy(() -> d.rename("")).isInstanceOf(DmException.class);
        d.setUuid("LVM-abc");
        assertThat(d.info().uuid()).isEqualTo("LVM-abc");
        assertThatThrownBy(() -> d.setUuid("other")).hasMessage("device 'vol2' already has uuid 'LVM-abc'");
    }

    @Test
    void theTablePrintsDevicesByTheirCurrentNames() {
        MappedDevice lower = devs.create("lower", "0 1024 linear d0 0\n");
        MappedDevice upper = devs.create("upper", "0 1024 linear lower 0\n");
        lower.rename("renamed");
        assertThat(upper.tableText()).isEqualTo("0 1024 linear renamed 0\n");
    }

    @Test
    void messagesGoToTheTargetCoveringTheSector() {
        TargetType echo = new TargetType("echo", TargetType.version(1, 0, 0), "", 0, 0, (ti, args) -> new Target() {
            @Override public MapResult map(Bio bio) { return MapResult.OK; }
            @Override public String status(StatusType type) { return ""; }
            @Override public List<DeviceRange> devices() { return List.of(); }
            @Override public String message(List<String> argv) { return ti.beginSector() + ":" + String.join(",", argv); }
        });
        devs.config(devs.config().withRegistry(Targets.REGISTRY.with(echo)));
        MappedDevice d = devs.create("vol", "0 8 linear d0 0\n8 8 echo\n16 8 echo\n");
        assertThat(d.message(17, "set  level 3")).isEqualTo("16:set,level,3");
        assertThat(d.message(8, "ping")).isEqualTo("8:ping");
        assertThatThrownBy(() -> d.message(0, "ping")).isInstanceOf(DmException.class)
                .hasMessage("linear at sector 0: target does not handle messages");
        assertThatThrownBy(() -> d.message(24, "ping")).hasMessage("no target of 'vol' covers sector 24 (size 24 sectors)");
    }

    @Test
    void forcedRemovalSwapsInAnErrorTableOfTheSameSize() {
        MappedDevice d = devs.create("vol", "0 2048 linear d0 0\n");
        SyncIo.write(d, 0, MemorySegment.ofArray(new byte[4096]));
        d.open();
        d.replaceWithErrorTable();
        assertThat(d.tableText()).isEqualTo("0 2048 error\n");
        assertThat(d.sizeBytes()).isEqualTo(2048 * 512L);
        assertThat(d.lowerDevices()).isEmpty();
        assertThat(SyncIo.execute(d, BioOp.READ, 0, 4096, BioFlags.NONE, MemorySegment.ofArray(new byte[4096])))
                .isEqualTo(IoStatus.IO_ERROR);
        assertThat(d.info().openCount()).isEqualTo(1);
        d.release();
        d.remove();
        assertThat(d.info().state()).isEqualTo(DeviceInfo.State.REMOVED);
        assertThat(d.info().liveTable()).isFalse();
        assertThatThrownBy(d::release).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aLogicalBlockSizeOf4KBelowMakesTheMappedDevice4K() {
        devs.add(Disk.memory("big", 8L << 20, DiskConfig.DEFAULT.withLogicalBlockSize(4096)));
        MappedDevice d = devs.create("vol", "0 1024 linear d0 0\n1024 1024 linear big 0\n");
        assertThat(d.limits().logicalBlockSize()).isEqualTo(4096);
        assertThat(SyncIo.execute(d, BioOp.WRITE, 512, 512, BioFlags.NONE, MemorySegment.ofArray(new byte[512])))
                .isEqualTo(IoStatus.INVALID);
    }

    @Test
    void swapMakesANewTableLiveInOneStepAndARefusedOneChangesNothing() throws Exception {
        MappedDevice d = MappedDevice.create("sw", null, "0 1024 linear d0 0\n", devs, devs.config());
        d.swap(TableSpec.parse("0 1024 linear d0 0\n1024 1024 linear d1 0\n"), devs, Duration.ofSeconds(5));
        assertThat(d.sizeBytes()).isEqualTo(2048 * 512L);
        assertThat(d.info().state()).isEqualTo(DeviceInfo.State.ACTIVE);
        assertThat(d.info().inactiveTable()).isFalse();
        assertThat(d.info().eventNumber()).isEqualTo(1);

        String before = d.tableText();
        assertThatThrownBy(() -> d.swap(TableSpec.parse("0 8 linear nope 0\n"), devs, null))
                .isInstanceOf(TableException.class);
        assertThat(d.tableText()).isEqualTo(before);
        assertThat(d.info().state()).isEqualTo(DeviceInfo.State.ACTIVE);
        assertThat(d.info().inactiveTable()).isFalse();
        assertThat(SyncIo.execute(d, BioOp.WRITE, 1024 * 512L, 512, BioFlags.NONE, MemorySegment.ofArray(new byte[512])))
                .isEqualTo(IoStatus.OK);
    }
}
