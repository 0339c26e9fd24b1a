package io.blockwork.engine.block;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class PlugTest {

    private static MemorySegment block(int value) {
        byte[] b = new byte[4096];
        java.util.Arrays.fill(b, (byte) value);
        return MemorySegment.ofArray(b);
    }

    @Test
    void adjacentWritesAreHeldUntilCloseThenMergedIntoOneRequest() {
        Disk disk = Disk.memory("d", 1 << 20, DiskConfig.DEFAULT);
        AtomicInteger completed = new AtomicInteger();
        try (Plug plug = Plug.start()) {
            // Submitted out of order: the plug sorts before merging.
            for (int i : new int[] {3, 0, 2, 1, 5, 4, 7, 6}) {
                disk.submit(Bio.write(i * 4096L, block(i), BioFlags.NONE, b -> completed.incrementAndGet()));
            }
            assertThat(plug.size()).isEqualTo(8);
            assertThat(completed).as("nothing dispatched while plugged").hasValue(0);
        }
        assertThat(completed).hasValue(8);
        assertThat(disk.merges()).as("eight bios, one request").isEqualTo(7);
        MemorySegment back = MemorySegment.ofArray(new byte[4096]);
        SyncIo.read(disk, 5 * 4096, back);
        assertThat(back.mismatch(block(5))).isEqualTo(-1);
    }

    @Test
    void aThreadAboutToWaitReleasesItsPlugFirst() {
        Disk disk = Disk.memory("d", 1 << 20, DiskConfig.DEFAULT);
        AtomicInteger completed = new AtomicInteger();
        try (Plug plug = Plug.start()) {
            disk.submit(Bio.write(0, block(1), BioFlags.NONE, b -> completed.incrementAndGet()));
            // A synchronous read would wait forever on its own plugged bio if the plug were kept.
            MemorySegment back = MemorySegment.ofArray(new byte[4096]);
            SyncIo.read(disk, 4096, back);
            assertThat(completed).hasValue(1);
            assertThat(plug.size()).isZero();
        }
    }

    @Test
    void nestedPlugsShareTheOutermost() {
        Disk disk = Disk.memory("d", 1 << 20, DiskConfig.DEFAULT);
        AtomicInteger completed = new AtomicInteger();
        try (Plug outer = Plug.start()) {
            try (Plug inner = Plug.start()) {
                disk.submit(Bio.write(0, block(1), BioFlags.NONE, b -> completed.incrementAndGet()));
            }
            assertThat(completed).as("inner close does not dispatch").hasValue(0);
            assertThat(outer.size()).isEqualTo(1);
        }
        assertThat(completed).hasValue(1);
    }

    @Test
    void fuaAndFlushesAreNeverHeld() {
        Disk disk = Disk.memory("d", 1 << 20, DiskConfig.writeback());
        AtomicInteger completed = new AtomicInteger();
        try (Plug plug = Plug.start()) {
            disk.submit(Bio.write(0, block(1), BioFlags.FUA, b -> completed.incrementAndGet()));
            disk.submit(Bio.flush(b -> completed.incrementAndGet()));
            assertThat(completed).hasValue(2);
            assertThat(plug.size()).isZero();
        }
    }

    @Test
    void aFullPlugDispatchesOnItsOwn() {
        Disk disk = Disk.memory("d", 1 << 20, DiskConfig.DEFAULT);
        AtomicInteger completed = new AtomicInteger();
        try (Plug plug = Plug.start()) {
            for (int i = 0; i < Plug.MAX_HELD; i++) {
                disk.submit(Bio.write(i * 8192L, block(i), BioFlags.NONE, b -> completed.incrementAndGet()));
            }
            assertThat(completed).hasValue(Plug.MAX_HELD);
        }
    }
}
