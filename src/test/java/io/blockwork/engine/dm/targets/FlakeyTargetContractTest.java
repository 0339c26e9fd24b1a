package io.blockwork.engine.dm.targets;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.ManualClock;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.ContractChecks;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.dm.DmTestDevices;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * flakey with no features: while up it is linear, so the whole kit applies (the clock stands
 * still in the up interval); its defined failure is that every I/O fails while down, and the
 * data written while up is there again when it comes back up.
 */
class FlakeyTargetContractTest extends BlockDeviceContract {

    private final ManualClock clock = new ManualClock();

    @Override
    protected DeviceUnderTest create() {
        DmTestDevices devs = new DmTestDevices();
        devs.config(devs.config().withClock(clock::nanos));
        devs.disk("d0", 20L << 20);
        return devs.underTest(devs.create("fl", "0 32768 flakey d0 1024 60 30\n"));
    }

    @Test
    @Override
    protected void errorsReachTheCaller() {
        ContractChecks.errorsReachTheCaller(dut()); // broken disk below, while up
    }

    @Test
    void everyIoFailsWhileDownAndDataIsBackWhenUp() {
        BlockDevice d = dut().device();
        byte[] pattern = new byte[8192];
        Arrays.fill(pattern, (byte) 0x5c);
        SyncIo.write(d, 16384, MemorySegment.ofArray(pattern));

        clock.advance(60_000_000_000L); // 60 s: down for 30 s
        MemorySegment buf = MemorySegment.ofArray(new byte[8192]);
        assertThat(SyncIo.execute(d, BioOp.READ, 16384, 8192, BioFlags.NONE, buf)).isEqualTo(IoStatus.IO_ERROR);
        assertThat(SyncIo.execute(d, BioOp.WRITE, 16384, 8192, BioFlags.NONE, MemorySegment.ofArray(new byte[8192])))
                .isEqualTo(IoStatus.IO_ERROR);
        assertThat(SyncIo.execute(d, BioOp.FLUSH, 0, 0, BioFlags.NONE, null)).isEqualTo(IoStatus.IO_ERROR);
        assertThat(SyncIo.execute(d, BioOp.DISCARD, 16384, 8192, BioFlags.NONE, null)).isEqualTo(IoStatus.IO_ERROR);

        clock.advance(30_000_000_000L); // 90 s: up again
        SyncIo.read(d, 16384, buf);
        assertThat(buf.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).isEqualTo(pattern);
    }
}
