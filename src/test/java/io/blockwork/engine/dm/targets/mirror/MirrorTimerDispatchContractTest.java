package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;

/** Strategy {@code timer} is slow, not wrong: the kit passes with the legs' queues left plugged. */
class MirrorTimerDispatchContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.config(devs.config().withBatchDispatch(BatchDispatch.Kind.TIMER));
        devs.disk("d0", 16L << 20);
        devs.disk("d1", 16L << 20);
        MappedDevice m = devs.create("mir", "0 32768 mirror core 1 256 2 d0 0 d1 0\n");
        return devs.underTest(m).withCleanup(m::remove);
    }
}
