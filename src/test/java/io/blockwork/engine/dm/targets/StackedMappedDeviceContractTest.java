package io.blockwork.engine.dm.targets;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;

/** A linear device over a striped device over disks: mapped devices stack like any block device. */
class StackedMappedDeviceContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.disk("d0", 12L << 20);
        devs.disk("d1", 12L << 20);
        devs.create("lower", "0 40960 striped 2 64 d0 0 d1 0\n");
        return devs.underTest(devs.create("upper", "0 32768 linear lower 8192\n"));
    }
}
