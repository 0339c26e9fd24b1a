package io.blockwork.engine.dm.targets;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** A zero target behaves like a null disk: writes vanish, reads are zeros. */
class ZeroTargetContractTest extends BlockDeviceContract {
    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        return DeviceUnderTest.of(devs.create("z", "0 65536 zero\n")).discardingData();
    }

    /** Nothing below can fail: writes and flushes succeed, reads keep returning zeros. */
    @Test
    @Override
    protected void errorsReachTheCaller() {
        BlockDevice d = dut().device();
        MemorySegment data = MemorySegment.ofArray(new byte[8192]);
        data.fill((byte) 7);
        assertThat(SyncIo.execute(d, BioOp.WRITE, 4096, 8192, BioFlags.FUA, data)).isEqualTo(IoStatus.OK);
        assertThat(SyncIo.execute(d, BioOp.FLUSH, 0, 0, BioFlags.NONE, null)).isEqualTo(IoStatus.OK);
        MemorySegment back = MemorySegment.ofArray(new byte[8192]);
        back.fill((byte) 1);
        assertThat(SyncIo.execute(d, BioOp.READ, 4096, 8192, BioFlags.NONE, back)).isEqualTo(IoStatus.OK);
        assertThat(back.mismatch(MemorySegment.ofArray(new byte[8192]))).isEqualTo(-1L);
    }
}
