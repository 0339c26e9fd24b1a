package io.blockwork.engine.dm.targets;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;

/** The 9-argument form on one disk with short real delays (reads 1 ms, writes 2 ms, flushes 1 ms). */
class DelayTargetContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.disk("d0", 20L << 20);
        return devs.underTest(devs.create("slow", "0 32768 delay d0 2048 1 d0 2048 2 d0 0 1\n"));
    }
}
