package io.blockwork.engine.dm.targets.logwrites;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;

/** log-writes over a writeback disk, its log on another: to its users it is the disk. */
class LogWritesTargetContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.disk("d0", 20L << 20);
        devs.disk("log", 256L << 20);
        return devs.underTest(devs.create("lw", "0 32768 log-writes d0 log\n"));
    }
}
