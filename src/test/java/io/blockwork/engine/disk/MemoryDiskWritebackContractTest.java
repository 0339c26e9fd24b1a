package io.blockwork.engine.disk;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;

class MemoryDiskWritebackContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        Disk disk = Disk.memory("mem0", 16L << 20, DiskConfig.writeback());
        return DeviceUnderTest.of(disk).withPowerCut(disk::powerCut).withBreakAll(() -> disk.faults(DiskFaults.ALL));
    }
}
