package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;

/**
 * A two-leg mirror with a core log and no {@code nosync}: the initial sync runs in the background
 * while the kit writes, so writes meet regions being recovered. Power cuts reach both legs.
 */
class MirrorContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.disk("d0", 20L << 20);
        devs.disk("d1", 20L << 20);
        MappedDevice m = devs.create("mir", "0 32768 mirror core 1 128 2 d0 0 d1 2048\n");
        return devs.underTest(m).withCleanup(m::remove);
    }
}
