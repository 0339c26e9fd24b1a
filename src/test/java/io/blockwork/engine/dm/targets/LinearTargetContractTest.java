package io.blockwork.engine.dm.targets;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;

/** One linear target onto the middle of a writeback disk. */
class LinearTargetContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.disk("d0", 40L << 20);
        return devs.underTest(devs.create("lin", "0 32768 linear d0 4096\n"));
    }
}
