package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;

/** Three legs, a disk log on its own writeback disk, {@code handle_errors}; power cuts reach the log too. */
class MirrorDiskLogContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.disk("d0", 16L << 20);
        devs.disk("d1", 16L << 20);
        devs.disk("d2", 16L << 20);
        devs.disk("log", 1L << 20);
        MappedDevice m = devs.create("mir", "0 32768 mirror disk 2 log 64 3 d0 0 d1 0 d2 0 1 handle_errors\n");
        return devs.underTest(m).withCleanup(m::remove);
    }
}
