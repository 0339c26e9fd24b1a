package io.blockwork.engine.dm.targets;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.EmptyFlush;

/** The kit again with the {@code per-target} flush strategy, over two disks. */
class LinearPerTargetFlushContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.config(devs.config().withEmptyFlush(EmptyFlush.PER_TARGET));
        devs.disk("d0", 16L << 20);
        devs.disk("d1", 16L << 20);
        return devs.underTest(devs.create("pt", "0 16384 linear d1 0\n16384 16384 linear d0 0\n"));
    }
}
