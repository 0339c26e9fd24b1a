package io.blockwork.engine.dm.thin;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.disk.DiskFaults;

/** A thin volume larger than its pool, on writeback memory disks: the block-device contract. */
class ThinTargetContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        ThinRig rig = new ThinRig(4L << 20, 32L << 20);
        return DeviceUnderTest.of(rig.newThin("thin", 0, 64L << 20))
                .withPowerCut(() -> {
                    rig.meta.powerCut();
                    rig.data.powerCut();
                })
                .withBreakAll(() -> {
                    rig.meta.faults(DiskFaults.ALL);
                    rig.data.faults(DiskFaults.ALL);
                })
                .withCleanup(rig::close);
    }
}
