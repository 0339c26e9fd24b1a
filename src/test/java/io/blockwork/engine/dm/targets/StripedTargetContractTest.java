package io.blockwork.engine.dm.targets;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;

/** Three stripes of 64 KiB chunks: the table is one chunk grid, so the core splits at chunks. */
class StripedTargetContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.disk("d0", 8L << 20);
        devs.disk("d1", 8L << 20);
        devs.disk("d2", 8L << 20);
        return devs.underTest(devs.create("str", "0 46080 striped 3 128 d0 0 d1 256 d2 512\n"));
    }
}
