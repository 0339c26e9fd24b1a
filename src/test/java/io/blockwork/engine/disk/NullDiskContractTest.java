package io.blockwork.engine.disk;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;

class NullDiskContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        Disk disk = Disk.nullDisk("null0", 1L << 30, DiskConfig.DEFAULT);
        return DeviceUnderTest.of(disk).discardingData().withBreakAll(() -> disk.faults(DiskFaults.ALL));
    }
}
