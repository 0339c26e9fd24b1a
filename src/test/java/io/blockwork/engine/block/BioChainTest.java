package io.blockwork.engine.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class BioChainTest {

    @Test
    void parentCompletesAfterItsLastChildOnly() {
        AtomicInteger calls = new AtomicInteger();
        Bio parent = Bio.write(0, MemorySegment.ofArray(new byte[8192]), BioFlags.NONE, b -> calls.incrementAndGet());
        Bio a = parent.split(0, 4096, 100 * 4096);
        Bio b = parent.split(4096, 4096, 7 * 4096);
        parent.endio();
        assertThat(calls).hasValue(0);
        a.endio();
        assertThat(calls).hasValue(0);
        b.endio();
        assertThat(calls).hasValue(1);
        assertThat(parent.status()).isEqualTo(IoStatus.OK);
    }

    @Test
    void theFirstErrorWinsAndOkNeverHidesIt() {
        Bio parent = Bio.flush(b -> {});
        Bio a = parent.chainChild(BioOp.FLUSH, 0, 0, 0, BioFlags.NONE);
        Bio b = parent.chainChild(BioOp.FLUSH, 0, 0, 0, BioFlags.NONE);
        Bio c = parent.chainChild(BioOp.FLUSH, 0, 0, 0, BioFlags.NONE);
        a.endio(IoStatus.NO_SPACE);
        b.endio(IoStatus.IO_ERROR);
        c.endio(IoStatus.OK);
        parent.endio();
        assertThat(parent.status()).isEqualTo(IoStatus.NO_SPACE);
    }

    @Test
    void childrenSliceTheParentsBufferWithoutCopying() {
        byte[] backing = new byte[8192];
        Bio parent = Bio.read(0, MemorySegment.ofArray(backing), b -> {});
        Bio second = parent.split(4096, 4096, 0);
        second.data().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 42);
        assertThat(backing[4096]).isEqualTo((byte) 42);
    }

    @Test
    void errorsTravelUpAChainOfLayers() {
        RecordingDevice bottom = new RecordingDevice(1 << 20, DeviceLimits.of(512));
        bottom.answer(IoStatus.IO_ERROR);
        // Two remapping layers above the failing device, like dm-linear over dm-linear.
        BlockDevice middle = new Remap(bottom, 4096);
        BlockDevice top = new Remap(middle, 4096);
        IoStatus status = SyncIo.execute(top, BioOp.READ, 0, 4096, BioFlags.NONE, MemorySegment.ofArray(new byte[4096]));
        assertThat(status).isEqualTo(IoStatus.IO_ERROR);
        assertThat(bottom.seen).singleElement().extracting(Bio::offset).isEqualTo(8192L);
    }

    /** A minimal remapping layer. */
    static final class Remap extends AbstractBlockDevice {
        private final BlockDevice lower;
        private final long shift;

        Remap(BlockDevice lower, long shift) {
            super("remap");
            this.lower = lower;
            this.shift = shift;
        }

        @Override
        protected void dispatch(Bio bio) {
            lower.submit(bio.remap(bio.offset() + shift));
            bio.endio();
        }

        @Override
        public long sizeBytes() {
            return lower.sizeBytes() - shift;
        }

        @Override
        public DeviceLimits limits() {
            return lower.limits();
        }
    }
}
