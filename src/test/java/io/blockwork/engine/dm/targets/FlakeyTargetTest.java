package io.blockwork.engine.dm.targets;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.ManualClock;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dm-flakey's features, stepping the clock into and out of the down interval. */
@Tag("unit")
class FlakeyTargetTest {

    private static final long S = 1_000_000_000L;

    private final ManualClock clock = new ManualClock();
    private final DmTestDevices devs = new DmTestDevices();
    private Disk disk;

    @BeforeEach
    void setUp() {
        devs.config(devs.config().withClock(clock::nanos));
        disk = devs.disk("d0", 4L << 20);
    }

    private static MemorySegment filled(int fill) {
        return MemorySegment.ofArray(new byte[4096]).fill((byte) fill);
    }

    private static IoStatus write(MappedDevice d, long off, int fill) {
        return SyncIo.execute(d, BioOp.WRITE, off, 4096, BioFlags.NONE, filled(fill));
    }

    private static MemorySegment readBack(Disk disk, long off) {
        MemorySegment m = MemorySegment.ofArray(new byte[4096]);
        SyncIo.read(disk, off, m);
        return m;
    }

    /** up 10 s, down 5 s; returns the device at t = 0 (up). */
    private MappedDevice flakey(String features) {
        return devs.create("fl", "0 8192 flakey d0 0 10 5 " + features + "\n");
    }

    private void goDown() {
        clock.advance(10 * S);
    }

    @Test
    void theScheduleRepeatsUpThenDown() {
        MappedDevice d = flakey("");
        assertThat(write(d, 0, 1)).isEqualTo(IoStatus.OK);
        clock.advance(9 * S);
        assertThat(write(d, 0, 1)).as("9 s: up").isEqualTo(IoStatus.OK);
        clock.advance(1 * S);
        assertThat(write(d, 0, 1)).as("10 s: down").isEqualTo(IoStatus.IO_ERROR);
        clock.advance(4 * S);
        assertThat(write(d, 0, 1)).as("14 s: down").isEqualTo(IoStatus.IO_ERROR);
        clock.advance(1 * S);
        assertThat(write(d, 0, 1)).as("15 s: up again").isEqualTo(IoStatus.OK);
        clock.advance(10 * S);
        assertThat(write(d, 0, 1)).as("25 s: down again").isEqualTo(IoStatus.IO_ERROR);
    }

    @Test
    void dropWritesAcknowledgesWritesThatNeverLandAndReadsWork() {
        MappedDevice d = flakey("1 drop_writes");
        write(d, 0, 1);
        goDown();
        assertThat(write(d, 0, 2)).isEqualTo(IoStatus.OK);
        assertThat(readBack(disk, 0).mismatch(filled(1))).as("the write was dropped").isEqualTo(-1L);
        MemorySegment into = MemorySegment.ofArray(new byte[4096]);
        assertThat(SyncIo.execute(d, BioOp.READ, 0, 4096, BioFlags.NONE, into)).isEqualTo(IoStatus.OK);
        assertThat(into.mismatch(filled(1))).isEqualTo(-1L);
    }

    @Test
    void errorWritesFailsWritesAndFlushesButNotReads() {
        MappedDevice d = flakey("1 error_writes");
        goDown();
        assertThat(write(d, 0, 2)).isEqualTo(IoStatus.IO_ERROR);
        assertThat(SyncIo.execute(d, BioOp.FLUSH, 0, 0, BioFlags.NONE, null)).isEqualTo(IoStatus.IO_ERROR);
        assertThat(SyncIo.execute(d, BioOp.READ, 0, 4096, BioFlags.NONE, MemorySegment.ofArray(new byte[4096])))
                .isEqualTo(IoStatus.OK);
    }

    @Test
    void errorReadsFailsOnlyReads() {
        MappedDevice d = flakey("1 error_reads");
        goDown();
        assertThat(write(d, 0, 2)).isEqualTo(IoStatus.OK);
        assertThat(readBack(disk, 0).mismatch(filled(2))).isEqualTo(-1L);
        assertThat(SyncIo.execute(d, BioOp.READ, 0, 4096, BioFlags.NONE, MemorySegment.ofArray(new byte[4096])))
                .isEqualTo(IoStatus.IO_ERROR);
    }

    @Test
    void corruptBioByteOnReadsChangesTheNthByteOfWhatIsReadButNotTheDisk() {
        MappedDevice d = flakey("5 corrupt_bio_byte 32 r 1 0");
        write(d, 0, 0x40);
        goDown();
        MemorySegment into = MemorySegment.ofArray(new byte[4096]);
        assertThat(SyncIo.execute(d, BioOp.READ, 0, 4096, BioFlags.NONE, into)).isEqualTo(IoStatus.OK);
        assertThat(into.get(JAVA_BYTE, 31)).isEqualTo((byte) 1);
        assertThat(into.asSlice(0, 31).mismatch(filled(0x40).asSlice(0, 31))).isEqualTo(-1L);
        assertThat(into.asSlice(32).mismatch(filled(0x40).asSlice(32))).isEqualTo(-1L);
        assertThat(readBack(disk, 0).mismatch(filled(0x40))).isEqualTo(-1L);
    }

    @Test
    void corruptBioByteOnWritesCorruptsWhatLandsButNotTheCallersBuffer() {
        MappedDevice d = flakey("5 corrupt_bio_byte 224 w 0 0");
        goDown();
        MemorySegment data = filled(0x7f);
        assertThat(SyncIo.execute(d, BioOp.WRITE, 4096, 4096, BioFlags.NONE, data)).isEqualTo(IoStatus.OK);
        assertThat(data.mismatch(filled(0x7f))).as("caller's buffer untouched").isEqualTo(-1L);
        MemorySegment landed = readBack(disk, 4096);
        assertThat(landed.get(JAVA_BYTE, 223)).isEqualTo((byte) 0);
        assertThat(landed.get(JAVA_BYTE, 222)).isEqualTo((byte) 0x7f);
    }

    @Test
    void corruptFlagsMustAllBeSetInTheBio() {
        // 0x20000 is REQ_FUA: only FUA writes are corrupted.
        MappedDevice d = flakey("5 corrupt_bio_byte 1 w 9 131072");
        goDown();
        SyncIo.write(d, 0, filled(1));
        SyncIo.write(d, 4096, filled(1), BioFlags.FUA);
        assertThat(readBack(disk, 0).get(JAVA_BYTE, 0)).isEqualTo((byte) 1);
        assertThat(readBack(disk, 4096).get(JAVA_BYTE, 0)).isEqualTo((byte) 9);
    }

    @Test
    void randomErrorsFailAboutTheirShareOfIoWithoutTouchingTheDisk() {
        MappedDevice d = devs.create("fl", "0 8192 flakey d0 0 0 1 4 random_read_error 250000000 random_write_error 500000000\n");
        assertThat(d.tableText()).isEqualTo("0 8192 flakey d0 0 0 1 4 random_read_error 250000000 random_write_error 500000000\n");
        SyncIo.write(disk, 0, filled(3));
        int n = 2000;
        int readErrors = 0;
        int writeErrors = 0;
        for (int i = 0; i < n; i++) {
            MemorySegment into = MemorySegment.ofArray(new byte[4096]);
            IoStatus r = SyncIo.execute(d, BioOp.READ, 0, 4096, BioFlags.NONE, into);
            if (r == IoStatus.OK) {
                assertThat(into.mismatch(filled(3))).isEqualTo(-1L);
            } else {
                readErrors++;
            }
            if (write(d, 4096, 5) != IoStatus.OK) {
                writeErrors++;
            }
        }
        // 25 % and 50 %, each within about 7 standard deviations.
        assertThat(readErrors).isBetween(n / 4 - 140, n / 4 + 140);
        assertThat(writeErrors).isBetween(n / 2 - 160, n / 2 + 160);
        MappedDevice always = devs.create("fl2", "0 8192 flakey d0 0 0 1 2 random_write_error 1000000000\n");
        assertThat(write(always, 8192, 9)).isEqualTo(IoStatus.IO_ERROR);
        assertThat(readBack(disk, 8192).mismatch(filled(0))).as("a failed write never reaches the disk").isEqualTo(-1L);
    }

    @Test
    void randomErrorsConflictWithTheFeaturesThatAlreadyDecide() {
        assertThatThrownBy(() -> flakey("3 error_writes random_write_error 5"))
                .isInstanceOf(TableException.class).hasMessageContaining("random_write_error is incompatible with drop_writes and error_writes");
        assertThatThrownBy(() -> flakey("3 error_reads random_read_error 5"))
                .isInstanceOf(TableException.class).hasMessageContaining("random_read_error is incompatible with error_reads");
        assertThatThrownBy(() -> flakey("2 random_read_error 1000000001"))
                .isInstanceOf(TableException.class).hasMessageContaining("Invalid random error argument");
        assertThatThrownBy(() -> flakey("4 random_read_error 5 random_read_error 6"))
                .isInstanceOf(TableException.class).hasMessageContaining("Feature random_read_error duplicated");
    }
}
