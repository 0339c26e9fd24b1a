package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.MappedDevice;

/**
 * The origin of a thin snapshot whose every block is shared: each first write breaks sharing,
 * and the device must still keep the block-device contract.
 */
class ThinSnapshotContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        ThinRig rig = new ThinRig(4L << 20, 64L << 20);
        MappedDevice origin = rig.newThin("origin", 0, 16L << 20);
        SyncIo.write(origin, 0, ThinRig.pattern(7, 16 << 20));
        rig.snapshot(origin, 0, 1);
        rig.thin("snap", 1, 16L << 20);
        return DeviceUnderTest.of(origin)
                .withPowerCut(() -> {
                    rig.meta.powerCut();
                    rig.data.powerCut();
                })
                .withBreakAll(() -> {
                    rig.meta.faults(io.blockwork.engine.disk.DiskFaults.ALL);
                    rig.data.faults(io.blockwork.engine.disk.DiskFaults.ALL);
                })
                .withCleanup(rig::close);
    }
}
