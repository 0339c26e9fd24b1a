package io.blockwork.engine.dm.targets;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;

/**
 * A linear target, then a striped one with a 12 KiB chunk (not a power of two) starting off the
 * chunk grid, then linear again: the mapped device splits at edges and chunks in its dispatch.
 */
class StripedMixedTableContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.disk("d0", 12L << 20);
        devs.disk("d1", 12L << 20);
        return devs.underTest(devs.create("mix", """
                0 1000 linear d0 0
                1000 30720 striped 2 24 d0 2048 d1 2048
                31720 1048 linear d1 20000
                """));
    }
}
