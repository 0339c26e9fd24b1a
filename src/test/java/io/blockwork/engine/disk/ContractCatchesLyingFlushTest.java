package io.blockwork.engine.disk;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.block.IoTimer;
import io.blockwork.engine.contract.ContractChecks;
import io.blockwork.engine.contract.DeviceUnderTest;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The kit must notice a disk that acknowledges flushes and FUA without making anything durable. */
@Tag("contract")
class ContractCatchesLyingFlushTest {

    /** A writeback memory medium whose flush does nothing and which claims no native FUA. */
    static final class LyingMedium implements Medium {
        private final MemoryMedium inner = new MemoryMedium(16L << 20, CacheMode.WRITEBACK);

        @Override public long sizeBytes() { return inner.sizeBytes(); }
        @Override public void read(long offset, MemorySegment into) { inner.read(offset, into); }
        @Override public void write(long offset, MemorySegment from, boolean durable) { inner.write(offset, from, false); }
        @Override public void discard(long offset, long length) { inner.discard(offset, length); }
        @Override public void writeZeroes(long offset, long length) { inner.writeZeroes(offset, length); }
        @Override public void flush() { /* the lie */ }
        @Override public void powerCut() { inner.powerCut(); }
        @Override public boolean nativeFua() { return false; }
        @Override public boolean blocking() { return false; }
        @Override public long allocatedBytes() { return inner.allocatedBytes(); }
        @Override public boolean persistent() { return false; }
        @Override public void close() { inner.close(); }
    }

    private static DeviceUnderTest lyingDisk() {
        LyingMedium medium = new LyingMedium();
        Disk disk = new Disk("liar", medium, DiskConfig.writeback(), IoTimer.shared());
        return DeviceUnderTest.of(disk).withPowerCut(medium::powerCut);
    }

    @Test
    void flushCheckFailsOnALyingDisk() {
        assertThatThrownBy(() -> ContractChecks.flushedWriteSurvivesPowerCut(lyingDisk()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("flushed write after power cut");
    }

    @Test
    void fuaCheckFailsOnALyingDisk() {
        assertThatThrownBy(() -> ContractChecks.fuaWriteSurvivesPowerCut(lyingDisk()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("FUA write after power cut");
    }

    @Test
    void preflushCheckFailsOnALyingDisk() {
        assertThatThrownBy(() -> ContractChecks.preflushWriteKeepsWhatCameBefore(lyingDisk()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("write before a PREFLUSH write");
    }
}
