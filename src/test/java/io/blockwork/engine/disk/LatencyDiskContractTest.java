package io.blockwork.engine.disk;

import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;

/** The contract again with completions on the timer thread, jitter and a queue-depth limit. */
class LatencyDiskContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DiskConfig config = DiskConfig.writeback()
                .withLatency(new LatencyModel(20_000, 30_000, 100_000, 10_000))
                .withQueueDepth(4)
                .withFlushMerging(FlushMerging.OFF);
        Disk disk = Disk.memory("slow0", 16L << 20, config);
        return DeviceUnderTest.of(disk).withPowerCut(disk::powerCut).withBreakAll(() -> disk.faults(DiskFaults.ALL));
    }
}
