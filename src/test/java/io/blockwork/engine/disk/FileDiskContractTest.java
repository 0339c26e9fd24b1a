package io.blockwork.engine.disk;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class FileDiskContractTest extends BlockDeviceContract {
    @TempDir
    Path dir;

    @Override
    protected DeviceUnderTest create() {
        Disk disk = Disk.createFile("file0", dir.resolve("file0.img"), 16L << 20, DiskConfig.writeback());
        return DeviceUnderTest.of(disk).withBreakAll(() -> disk.faults(DiskFaults.ALL)).withCleanup(disk::close);
    }
}
