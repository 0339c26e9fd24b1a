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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The error target's contract is to fail: every check of the kit is replaced by what it promises
 * instead. Reads, writes, discards and write-zeroes fail with IO_ERROR anywhere, large or small,
 * concurrently; bad geometry still fails as INVALID before the target; empty flushes succeed
 * (no flush bios, as in the kernel).
 */
class ErrorTargetContractTest extends BlockDeviceContract {

    @Override
    protected DeviceUnderTest create() {
        return DeviceUnderTest.of(new DmTestDevices().create("err", "0 32768 error\n"));
    }

    private static IoStatus io(BlockDevice d, BioOp op, long off, int len, BioFlags flags) {
        return SyncIo.execute(d, op, off, len, flags, op.hasData() ? MemorySegment.ofArray(new byte[len]) : null);
    }

    private void assertAllFail(long off, int len) {
        BlockDevice d = dut().device();
        for (BioOp op : new BioOp[] {BioOp.READ, BioOp.WRITE, BioOp.DISCARD, BioOp.WRITE_ZEROES}) {
            assertThat(io(d, op, off, len, BioFlags.NONE)).as("%s at %d+%d", op, off, len).isEqualTo(IoStatus.IO_ERROR);
        }
        assertThat(io(d, BioOp.WRITE, off, len, BioFlags.FUA)).as("FUA write").isEqualTo(IoStatus.IO_ERROR);
        assertThat(io(d, BioOp.WRITE, off, len, BioFlags.PREFLUSH)).as("PREFLUSH write").isEqualTo(IoStatus.IO_ERROR);
    }

    @Test
    @Override
    protected void readsBackWhatWasWritten() {
        assertAllFail(65536, 4096);
    }

    @Test
    @Override
    protected void firstAndLastBlocksAreAddressable() {
        assertAllFail(0, 512);
        assertAllFail(dut().device().sizeBytes() - 512, 512);
    }

    @Test
    @Override
    protected void largeIoIsSplitAndReassembled() {
        assertAllFail(512, 3 << 20);
    }

    @Test
    @Override
    protected void badGeometryIsRejectedAndChangesNothing() {
        BlockDevice d = dut().device();
        assertThat(io(d, BioOp.WRITE, d.sizeBytes(), 512, BioFlags.NONE)).isEqualTo(IoStatus.INVALID);
        assertThat(io(d, BioOp.READ, 1, 512, BioFlags.NONE)).isEqualTo(IoStatus.INVALID);
    }

    @Test
    @Override
    protected void discardAndWriteZeroesReadBackZeros() {
        assertAllFail(4096, 65536);
    }

    @Test
    @Override
    protected void concurrentWritersOnDisjointRangesKeepTheirData() throws Exception {
        BlockDevice d = dut().device();
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<Long>> failures = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                long base = w * (1L << 20);
                failures.add(pool.submit((Callable<Long>) () -> {
                    long n = 0;
                    for (int i = 0; i < 64; i++) {
                        n += io(d, BioOp.WRITE, base + i * 4096L, 4096, BioFlags.NONE) == IoStatus.IO_ERROR ? 1 : 0;
                    }
                    return n;
                }));
            }
            for (Future<Long> f : failures) {
                assertThat(f.get()).isEqualTo(64L);
            }
        }
    }

    @Test
    @Override
    protected void flushedWritesSurviveAPowerCut() {
        assertThat(io(dut().device(), BioOp.FLUSH, 0, 0, BioFlags.NONE)).isEqualTo(IoStatus.OK);
    }

    @Test
    @Override
    protected void fuaWritesSurviveAPowerCut() {
        assertThat(io(dut().device(), BioOp.WRITE, 0, 4096, BioFlags.FUA)).isEqualTo(IoStatus.IO_ERROR);
    }

    @Test
    @Override
    protected void aPreflushWriteKeepsTheWritesBeforeItThroughAPowerCut() {
        assertThat(io(dut().device(), BioOp.WRITE, 0, 4096, BioFlags.PREFLUSH.withFua(true)))
                .isEqualTo(IoStatus.IO_ERROR);
    }

    @Test
    @Override
    protected void unflushedWritesAreNeverTornByAPowerCut() {
        assertThat(io(dut().device(), BioOp.WRITE, 32768, 65536, BioFlags.NONE)).isEqualTo(IoStatus.IO_ERROR);
    }

    @Test
    @Override
    protected void errorsReachTheCaller() {
        assertAllFail(8192, 16384);
    }
}
