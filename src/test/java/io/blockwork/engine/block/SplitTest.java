package io.blockwork.engine.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The core splits at boundaries and max I/O size, once, before the device sees a bio. */
@Tag("unit")
class SplitTest {

    @Test
    void aWriteAcrossChunkBoundariesArrivesAsPiecesThatFit() {
        RecordingDevice dev = new RecordingDevice(1 << 20, DeviceLimits.of(512).withBoundary(64 * 1024));
        IoStatus s = SyncIo.execute(dev, BioOp.WRITE, 60 * 1024, 136 * 1024, BioFlags.FUA,
                MemorySegment.ofArray(new byte[136 * 1024]));
        assertThat(s).isEqualTo(IoStatus.OK);
        assertThat(dev.seen).extracting(Bio::offset).containsExactly(60 * 1024L, 64 * 1024L, 128 * 1024L, 192 * 1024L);
        assertThat(dev.seen).extracting(Bio::length).containsExactly(4 * 1024L, 64 * 1024L, 64 * 1024L, 4 * 1024L);
        assertThat(dev.seen).allMatch(Bio::fua);
    }

    @Test
    void aSplitPreflushWriteBecomesOneFlushAndPlainPieces() {
        RecordingDevice dev = new RecordingDevice(4 << 20, DeviceLimits.of(512).withMaxIo(1 << 20));
        IoStatus s = SyncIo.execute(dev, BioOp.WRITE, 0, 3 << 20, BioFlags.PREFLUSH,
                MemorySegment.ofArray(new byte[3 << 20]));
        assertThat(s).isEqualTo(IoStatus.OK);
        assertThat(dev.seen).extracting(Bio::op).containsExactly(BioOp.FLUSH, BioOp.WRITE, BioOp.WRITE, BioOp.WRITE);
        assertThat(dev.seen).noneMatch(Bio::preflush);
    }

    @Test
    void discardsIgnoreMaxIoButRespectBoundaries() {
        RecordingDevice dev = new RecordingDevice(8 << 20, DeviceLimits.of(512).withMaxIo(64 * 1024));
        assertThat(SyncIo.execute(dev, BioOp.DISCARD, 0, 8 << 20, BioFlags.NONE, null)).isEqualTo(IoStatus.OK);
        assertThat(dev.seen).hasSize(1);
    }

    @Test
    void anErrorInOnePieceFailsTheWhole() {
        RecordingDevice dev = new RecordingDevice(1 << 20, DeviceLimits.of(512).withBoundary(4096));
        dev.hold(true);
        Bio[] done = new Bio[1];
        dev.submit(Bio.read(0, MemorySegment.ofArray(new byte[16384]), b -> done[0] = b));
        assertThat(dev.held).hasSize(4);
        dev.held.get(2).endio(IoStatus.IO_ERROR);
        dev.held.remove(2);
        assertThat(done[0]).isNull();
        dev.release();
        assertThat(done[0].status()).isEqualTo(IoStatus.IO_ERROR);
    }
}
