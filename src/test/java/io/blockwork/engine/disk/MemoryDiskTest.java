package io.blockwork.engine.disk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.ManualClock;
import io.blockwork.engine.block.SyncIo;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class MemoryDiskTest {

    private static MemorySegment filled(int bytes, int value) {
        byte[] b = new byte[bytes];
        java.util.Arrays.fill(b, (byte) value);
        return MemorySegment.ofArray(b);
    }

    @Test
    void aHugeDiskHoldsNothingUntilWritten() {
        Disk disk = Disk.memory("big", 1L << 40, DiskConfig.DEFAULT);
        assertThat(disk.allocatedBytes()).isZero();
        SyncIo.write(disk, (1L << 40) - 8192, filled(8192, 7));
        assertThat(disk.allocatedBytes()).isEqualTo(8192);
    }

    /**
     * The page table's metadata grows with data written, never with declared size: a thousand
     * 1 EiB disks fit in a small heap (a root sized to the declared size took 4 GiB each).
     */
    @Test
    void exbibyteDisksCostAlmostNothingUntilWritten() {
        List<Disk> disks = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            disks.add(Disk.memory("eib-" + i, 1L << 60, DiskConfig.DEFAULT));
        }
        Disk largest = Disk.memory("largest", Long.MAX_VALUE - 4095, DiskConfig.DEFAULT);
        long last = largest.sizeBytes() - 4096;
        SyncIo.write(largest, last, filled(4096, 3));
        MemorySegment back = MemorySegment.ofArray(new byte[4096]);
        SyncIo.read(largest, last, back);
        assertThat(back.mismatch(filled(4096, 3))).isEqualTo(-1);
        assertThat(largest.allocatedBytes()).isEqualTo(4096);
        assertThat(disks).hasSize(1000);
    }

    /** Zeroes into a page never written change nothing, so they allocate nothing (an md resync writes them). */
    @Test
    void zeroesIntoHolesAllocateNothingButStillOverwriteData() {
        Disk disk = Disk.memory("z", 16L << 20, DiskConfig.DEFAULT);
        SyncIo.write(disk, 0, filled(4 << 20, 0));
        assertThat(disk.allocatedBytes()).isZero();
        SyncIo.write(disk, 8192, filled(4096, 5));
        SyncIo.write(disk, 8192, filled(4096, 0));
        MemorySegment back = MemorySegment.ofArray(new byte[4096]);
        SyncIo.read(disk, 8192, back);
        assertThat(back.mismatch(filled(4096, 0))).isEqualTo(-1);
    }

    /** A FUA write of zeroes into a hole is durable, even where the hole itself was not. */
    @Test
    void aDurableZeroWriteIntoAHoleSurvivesAPowerCut() {
        Disk disk = Disk.memory("zw", 16L << 20, DiskConfig.writeback());
        SyncIo.write(disk, 0, filled(4096, 9));
        SyncIo.flush(disk);
        SyncIo.discard(disk, 0, 4096);
        SyncIo.write(disk, 0, filled(4096, 0), BioFlags.FUA);
        disk.powerCut();
        MemorySegment back = MemorySegment.ofArray(new byte[4096]);
        SyncIo.read(disk, 0, back);
        assertThat(back.mismatch(filled(4096, 0))).isEqualTo(-1);
        assertThat(disk.allocatedBytes()).isZero();
    }

    @Test
    void discardFreesMemory() {
        Disk disk = Disk.memory("m", 64L << 20, DiskConfig.DEFAULT);
        SyncIo.write(disk, 0, filled(8 << 20, 1));
        assertThat(disk.allocatedBytes()).isEqualTo(8L << 20);
        SyncIo.discard(disk, 0, 8L << 20);
        assertThat(disk.allocatedBytes()).isZero();
    }

    @Test
    void discardOnAWritebackDiskIsUndoneByAPowerCutUntilFlushed() {
        Disk disk = Disk.memory("m", 16L << 20, DiskConfig.writeback());
        SyncIo.write(disk, 0, filled(1 << 20, 9));
        SyncIo.flush(disk);
        SyncIo.discard(disk, 0, 1L << 20);
        assertThat(disk.allocatedBytes()).isZero();
        disk.powerCut();
        MemorySegment back = MemorySegment.ofArray(new byte[1 << 20]);
        SyncIo.read(disk, 0, back);
        assertThat(back.mismatch(filled(1 << 20, 9))).isEqualTo(-1);
        assertThat(disk.allocatedBytes()).isEqualTo(1L << 20);
    }

    @Test
    void writesNeverFlushedVanishWithAPowerCut() {
        Disk disk = Disk.memory("m", 16L << 20, DiskConfig.writeback());
        SyncIo.write(disk, 0, filled(4096, 1));
        disk.powerCut();
        assertThat(disk.allocatedBytes()).isZero();
    }

    @Test
    void aPowerCutNeedsAWritebackMemoryDisk() {
        Disk disk = Disk.memory("m", 1 << 20, DiskConfig.DEFAULT);
        assertThatThrownBy(disk::powerCut).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void latencyDelaysCompletionUntilTheClockSaysSo() {
        ManualClock clock = new ManualClock();
        Disk disk = new Disk("slow", new MemoryMedium(1 << 20, CacheMode.WRITEBACK),
                DiskConfig.writeback().withLatency(new LatencyModel(80_000, 100_000, 1_000_000, 0)), clock);
        List<IoStatus> done = new ArrayList<>();
        disk.submit(Bio.write(0, filled(4096, 1), BioFlags.NONE, b -> done.add(b.status())));
        clock.advance(99_999);
        assertThat(done).isEmpty();
        clock.advance(1);
        assertThat(done).containsExactly(IoStatus.OK);

        disk.submit(Bio.flush(b -> done.add(b.status())));
        clock.advance(999_999);
        assertThat(done).hasSize(1);
        clock.advance(1);
        assertThat(done).hasSize(2);
    }

    @Test
    void theQueueDepthLimitHoldsBackRequestsBeyondIt() {
        ManualClock clock = new ManualClock();
        Disk disk = new Disk("qd", new MemoryMedium(1 << 20, CacheMode.WRITETHROUGH),
                DiskConfig.DEFAULT.withLatency(new LatencyModel(0, 1000, 0, 0)).withQueueDepth(2), clock);
        List<Long> done = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            disk.submit(Bio.write(i * 4096L, filled(4096, i), BioFlags.NONE, b -> done.add(b.offset())));
        }
        assertThat(clock.pending()).as("two in service").isEqualTo(2);
        clock.advance(1000);
        assertThat(done).containsExactly(0L, 4096L);
        assertThat(clock.pending()).as("the next two started as slots freed").isEqualTo(2);
        clock.advance(1000);
        clock.advance(1000);
        assertThat(done).hasSize(5);
    }

    @Test
    void fuaOnAFileDiskIsEmulatedWithAFlush(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        Disk disk = Disk.createFile("f", dir.resolve("f.img"), 1 << 20, DiskConfig.writeback());
        try {
            SyncIo.write(disk, 0, filled(4096, 3), BioFlags.FUA);
            assertThat(disk.mediaFlushes()).isEqualTo(1);
            SyncIo.write(disk, 0, filled(4096, 3), BioFlags.NONE);
            assertThat(disk.mediaFlushes()).isEqualTo(1);
        } finally {
            disk.close();
        }
    }

    @Test
    void aWritethroughDiskCompletesFlushesWithoutTouchingTheMedium() {
        Disk disk = Disk.memory("wt", 1 << 20, DiskConfig.DEFAULT);
        SyncIo.flush(disk);
        assertThat(disk.counters().flushes()).isEqualTo(1);
        assertThat(disk.mediaFlushes()).isZero();
    }
}
