package io.blockwork.engine.md;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import java.util.ArrayList;
import java.util.List;

/** Arrays over memory disks for tests: the disks, the array, and contract-kit hooks. */
final class MdFixture {

    final List<Disk> disks = new ArrayList<>();
    final MdArray array;

    private MdFixture(MdArraySpec spec, int members, long diskBytes, DiskConfig config) {
        for (int i = 0; i < members; i++) {
            disks.add(Disk.memory(spec.name() + "-d" + i, diskBytes, config));
        }
        array = MdArray.create(spec, disks);
    }

    private MdFixture(MdArray array, List<Disk> disks) {
        this.array = array;
        this.disks.addAll(disks);
    }

    /** A fixture around an array made elsewhere. */
    static MdFixture wrap(MdArray array, List<Disk> disks) {
        return new MdFixture(array, disks);
    }

    /** {@code members} writeback memory disks of {@code diskBytes}, no initial resync, no speed limit. */
    static MdFixture of(MdArraySpec spec, int members, long diskBytes) {
        return new MdFixture(spec.withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED), members, diskBytes, DiskConfig.writeback());
    }

    static MdFixture of(MdArraySpec spec, int members, long diskBytes, DiskConfig config) {
        return new MdFixture(spec, members, diskBytes, config);
    }

    static MdArraySpec raid10(String layout) {
        return MdArraySpec.of("md-r10", MdLevel.RAID10).withLayout(Raid10Layout.parse(layout)).withChunk(64 * 1024);
    }

    static MdArraySpec spec(MdLevel level) {
        return MdArraySpec.of("md-" + level.label(), level);
    }

    Disk disk(int i) {
        return disks.get(i);
    }

    Disk spare(String name, long bytes) {
        Disk d = Disk.memory(name, bytes, disks.getFirst().latency().isZero() ? DiskConfig.writeback()
                : DiskConfig.writeback().withLatency(disks.getFirst().latency()));
        disks.add(d);
        return d;
    }

    /** The contract kit's view: power cut and breakage go to every member disk. */
    DeviceUnderTest underTest() {
        return DeviceUnderTest.of(array)
                .withPowerCut(() -> disks.forEach(Disk::powerCut))
                .withBreakAll(() -> disks.forEach(d -> d.faults(DiskFaults.ALL)))
                .withCleanup(array::stop);
    }

    static List<BlockDevice> devices(List<Disk> disks) {
        return List.copyOf(disks);
    }
}
