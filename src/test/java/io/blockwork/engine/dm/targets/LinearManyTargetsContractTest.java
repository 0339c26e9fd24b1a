package io.blockwork.engine.dm.targets;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;

/**
 * 64 linear targets of uneven sizes, alternating over two disks in reverse order: no single
 * boundary expresses the table, so the mapped device splits at target edges itself.
 */
class LinearManyTargetsContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.disk("d0", 24L << 20);
        devs.disk("d1", 24L << 20);
        StringBuilder table = new StringBuilder();
        long start = 0;
        for (int i = 0; i < 64; i++) {
            long len = i % 3 == 0 ? 520 : 512; // sectors; uneven on purpose
            table.append(start).append(' ').append(len).append(" linear d").append(i % 2).append(' ')
                    .append((63 - i) * 600L).append('\n');
            start += len;
        }
        return devs.underTest(devs.create("many", table.toString()));
    }
}
