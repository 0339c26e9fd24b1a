package io.blockwork.engine.disk;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;

class MemoryDiskWritethroughContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        Disk disk = Disk.memory("mem0", 16L << 20, DiskConfig.DEFAULT.withLogicalBlockSize(4096));
        // Writethrough: nothing is volatile, so a power cut of the medium must change nothing.
        return DeviceUnderTest.of(disk).withPowerCut(disk.medium()::powerCut)
                .withBreakAll(() -> disk.faults(DiskFaults.ALL));
    }
}
