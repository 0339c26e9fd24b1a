package io.blockwork.engine.dm.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.targets.Snapshots;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 5: a full COW device overflows a {@code PO} snapshot (its writes fail, its reads go
 * on) and invalidates any other (all its I/O fails, and a persistent header says so); origin
 * writes never fail for a snapshot's sake. Every state shows in the status line and record.
 */
@Tag("unit")
class OverflowAndInvalidTest {

    private static final long SIZE = 4L << 20;
    private static final int CHUNK = 4096;

    private static IoStatus write(BlockDevice d, long chunk, byte fill) {
        byte[] b = new byte[CHUNK];
        Arrays.fill(b, fill);
        return SyncIo.execute(d, BioOp.WRITE, chunk * CHUNK, CHUNK, BioFlags.NONE, MemorySegment.ofArray(b));
    }

    private static IoStatus read(BlockDevice d, long chunk, byte[] into) {
        return SyncIo.execute(d, BioOp.READ, chunk * CHUNK, CHUNK, BioFlags.NONE, MemorySegment.ofArray(into));
    }

    private static byte[] filled(byte b) {
        byte[] a = new byte[CHUNK];
        Arrays.fill(a, b);
        return a;
    }

    private static SnapshotStatus status(MappedDevice d) {
        return Snapshots.status(d).orElseThrow();
    }

    private static int headerValid(Disk cow) {
        MemorySegment h = MemorySegment.ofArray(new byte[512]);
        SyncIo.read(cow, 0, h);
        return h.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 4);
    }

    @Test
    void aFullPersistentOverflowSnapshotOverflowsWritesFailReadsGoOn() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        rig.cow("cow", 6L * CHUNK); // header, one metadata area, four data chunks
        assertThat(write(rig.volume, 10, (byte) 0x10)).isEqualTo(IoStatus.OK);
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.PERSISTENT_OVERFLOW, 8);
        for (int c = 0; c < 4; c++) {
            assertThat(write(snap, c, (byte) (c + 1))).isEqualTo(IoStatus.OK);
        }
        assertThat(snap.statusText()).isEqualTo("0 8192 snapshot 48/48 16\n");
        assertThat(status(snap).fillPercent()).isEqualTo(100.0);
        long events = snap.info().eventNumber();

        assertThat(write(snap, 10, (byte) 0x55)).as("no room for chunk 10").isEqualTo(IoStatus.NO_SPACE);
        assertThat(snap.statusText()).isEqualTo("0 8192 snapshot Overflow\n");
        assertThat(status(snap).state()).isEqualTo(SnapshotStatus.State.OVERFLOW);
        assertThat(snap.info().eventNumber()).isEqualTo(events + 1);
        assertThat(write(snap, 0, (byte) 0x66)).as("an overflowed snapshot takes no writes at all").isEqualTo(IoStatus.NO_SPACE);

        byte[] got = new byte[CHUNK];
        assertThat(read(snap, 0, got)).isEqualTo(IoStatus.OK);
        assertThat(got).isEqualTo(filled((byte) 1));
        assertThat(read(snap, 10, got)).isEqualTo(IoStatus.OK);
        assertThat(got).as("chunk 10 as it was").isEqualTo(filled((byte) 0x10));

        // The origin keeps working: chunks the snapshot holds pass, a chunk it would need invalidates it.
        assertThat(write(rig.volume, 0, (byte) 0x77)).isEqualTo(IoStatus.OK);
        assertThat(snap.statusText()).contains("Overflow");
        assertThat(write(rig.volume, 20, (byte) 0x78)).isEqualTo(IoStatus.OK);
        assertThat(snap.statusText()).isEqualTo("0 8192 snapshot Invalid\n");
        assertThat(read(snap, 0, got)).isEqualTo(IoStatus.IO_ERROR);
        Disk cow = (Disk) rig.devs.find("cow");
        await().atMost(Duration.ofSeconds(60)).until(() -> headerValid(cow) == 0);
    }

    @Test
    void aFullPersistentSnapshotIsInvalidatedAndRemembersIt() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.GLOBAL);
        Disk cow = rig.cow("cow", 6L * CHUNK);
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.PERSISTENT, 8);
        for (int c = 0; c < 4; c++) {
            assertThat(write(snap, c, (byte) 1)).isEqualTo(IoStatus.OK);
        }
        long events = snap.info().eventNumber();
        assertThat(write(snap, 7, (byte) 2)).isEqualTo(IoStatus.IO_ERROR);
        assertThat(snap.statusText()).isEqualTo("0 8192 snapshot Invalid\n");
        assertThat(snap.info().eventNumber()).isEqualTo(events + 1);
        assertThat(read(snap, 0, new byte[CHUNK])).isEqualTo(IoStatus.IO_ERROR);
        assertThat(write(snap, 0, (byte) 3)).isEqualTo(IoStatus.IO_ERROR);
        assertThat(write(rig.volume, 30, (byte) 4)).as("origin writes go on").isEqualTo(IoStatus.OK);
        await().atMost(Duration.ofSeconds(60)).until(() -> headerValid(cow) == 0);

        snap.remove();
        MappedDevice again = rig.snapshot("s2", "cow", StoreType.PERSISTENT, 8);
        assertThat(again.statusText()).as("the header remembers").isEqualTo("0 8192 snapshot Invalid\n");
    }

    @Test
    void originWritesInvalidateAFullTransientSnapshot() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        rig.cow("cow", 4L * CHUNK);
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.TRANSIENT, 8);
        for (int c = 0; c < 4; c++) {
            assertThat(write(rig.volume, c, (byte) 9)).isEqualTo(IoStatus.OK);
        }
        assertThat(snap.statusText()).isEqualTo("0 8192 snapshot 32/32 0\n");
        assertThat(write(rig.volume, 4, (byte) 9)).isEqualTo(IoStatus.OK);
        assertThat(status(snap).state()).isEqualTo(SnapshotStatus.State.INVALID);
        assertThat(read(snap, 0, new byte[CHUNK])).isEqualTo(IoStatus.IO_ERROR);
    }

    @Test
    void aFailedCopyInvalidatesTheSnapshotButNotTheOriginWrite() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        Disk cow = rig.cow("cow", SIZE);
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.PERSISTENT, 8);
        cow.faults(new DiskFaults(false, true, false));
        assertThat(write(rig.volume, 3, (byte) 5)).isEqualTo(IoStatus.OK);
        assertThat(snap.statusText()).isEqualTo("0 8192 snapshot Invalid\n");
        byte[] got = new byte[CHUNK];
        assertThat(read(rig.volume, 3, got)).isEqualTo(IoStatus.OK);
        assertThat(got).isEqualTo(filled((byte) 5));
    }
}
