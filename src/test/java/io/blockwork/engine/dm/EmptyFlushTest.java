package io.blockwork.engine.dm;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.RecordingDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Acceptance 4 and the flush rules: how many flushes one empty flush of a table costs each
 * underlying disk under both strategies, and how PREFLUSH and FUA pass through.
 */
@Tag("unit")
class EmptyFlushTest {

    private final DmTestDevices devs = new DmTestDevices();

    private MappedDevice device(String strategy, String table) {
        devs.config(devs.config().withEmptyFlush(EmptyFlush.fromLabel(strategy)));
        return devs.create("v", table);
    }

    /** 1024 linear targets of {@code sectors} each, target i on disk {@code i % disks}. */
    private static String linearTable(int targets, long sectors, int disks) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < targets; i++) {
            s.append(i * sectors).append(' ').append(sectors).append(" linear d").append(i % disks).append(' ')
                    .append((i / disks) * sectors).append('\n');
        }
        return s.toString();
    }

    @ParameterizedTest(name = "{0}: {1} flush(es) reach the disk")
    @CsvSource({"per-device, 1", "per-target, 1024"})
    void oneEmptyFlushOnA1024TargetLinearTableOverOneDisk(String strategy, long expected) {
        Disk disk = devs.disk("d0", 1L << 30);
        MappedDevice d = device(strategy, linearTable(1024, 2048, 1));
        long before = disk.counters().flushes();
        SyncIo.flush(d);
        assertThat(disk.counters().flushes() - before).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}: {1} flush(es) per disk")
    @CsvSource({"per-device, 1", "per-target, 512"})
    void alternatingOverTwoDisksEachDistinctDiskIsFlushed(String strategy, long perDisk) {
        Disk d0 = devs.disk("d0", 512L << 20);
        Disk d1 = devs.disk("d1", 512L << 20);
        MappedDevice d = device(strategy, linearTable(1024, 2048, 2));
        SyncIo.flush(d);
        assertThat(d0.counters().flushes()).isEqualTo(perDisk);
        assertThat(d1.counters().flushes()).isEqualTo(perDisk);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"per-device, 1, 1", "per-target, 2, 1"})
    void aStripedTableFlushesEachStripeOrEachDevice(String strategy, long d0Flushes, long d1Flushes) {
        Disk d0 = devs.disk("d0", 8L << 20);
        Disk d1 = devs.disk("d1", 8L << 20);
        MappedDevice d = device(strategy, "0 12288 striped 3 64 d0 0 d1 0 d0 4096\n");
        SyncIo.flush(d);
        assertThat(d0.counters().flushes()).isEqualTo(d0Flushes);
        assertThat(d1.counters().flushes()).isEqualTo(d1Flushes);
    }

    @Test
    void aTargetThatDoesNotLetFlushesBypassItKeepsThePerTargetFanOut() {
        Disk disk = devs.disk("d0", 8L << 20);
        MappedDevice d = device("per-device", """
                0 1024 linear d0 0
                1024 1024 linear d0 1024
                2048 1024 flakey d0 2048 60 0
                3072 1024 zero
                """);
        SyncIo.flush(d);
        assertThat(disk.counters().flushes()).as("two linear + one flakey; zero takes none").isEqualTo(3);
    }

    @Test
    void aTableWithNoFlushBiosCompletesEmptyFlushesAtOnce() {
        MappedDevice d = device("per-device", "0 1024 zero\n1024 1024 error\n");
        assertThat(SyncIo.execute(d, BioOp.FLUSH, 0, 0, BioFlags.NONE, null)).isEqualTo(IoStatus.OK);
    }

    @Test
    void preflushSendsTheEmptyFlushFirstAndTheDataAfterItCompleted() throws Exception {
        RecordingDevice rec = devs.add(new RecordingDevice(8L << 20, DeviceLimits.of(512)));
        MappedDevice d = device("per-device", "0 8192 linear rec 0\n8192 8192 linear rec 8192\n");
        rec.hold(true);
        CompletableFuture<IoStatus> done = new CompletableFuture<>();
        d.submit(Bio.write(4096, MemorySegment.ofArray(new byte[4096]), BioFlags.PREFLUSH.withFua(true),
                b -> done.complete(b.status())));
        assertThat(rec.seen).extracting(Bio::op).containsExactly(BioOp.FLUSH);

        rec.hold(false);
        rec.release();
        assertThat(done.get()).isEqualTo(IoStatus.OK);
        assertThat(rec.seen).extracting(Bio::op).containsExactly(BioOp.FLUSH, BioOp.WRITE);
        Bio data = rec.seen.get(1);
        assertThat(data.preflush()).isFalse();
        assertThat(data.fua()).as("FUA passes through").isTrue();
    }

    @Test
    void aFailedPreflushFailsTheWriteWithoutSendingTheData() {
        RecordingDevice rec = devs.add(new RecordingDevice(8L << 20, DeviceLimits.of(512)));
        MappedDevice d = device("per-device", "0 8192 linear rec 0\n");
        rec.answer(IoStatus.IO_ERROR);
        assertThat(SyncIo.execute(d, BioOp.WRITE, 0, 4096, BioFlags.PREFLUSH, MemorySegment.ofArray(new byte[4096])))
                .isEqualTo(IoStatus.IO_ERROR);
        assertThat(rec.seen).extracting(Bio::op).containsExactly(BioOp.FLUSH);
    }

    @Test
    void fuaRidesOnEveryPieceOfASplitWrite() {
        RecordingDevice rec = devs.add(new RecordingDevice(8L << 20, DeviceLimits.of(512)));
        MappedDevice d = device("per-device", "0 9 linear rec 100\n9 8183 linear rec 4096\n");
        assertThat(SyncIo.execute(d, BioOp.WRITE, 0, 8192, BioFlags.FUA, MemorySegment.ofArray(new byte[8192])))
                .isEqualTo(IoStatus.OK);
        assertThat(rec.seen).hasSize(2).allMatch(Bio::fua);
        assertThat(rec.seen).extracting(Bio::offset).containsExactly(100L * 512, 4096L * 512);
        assertThat(rec.seen).extracting(Bio::length).containsExactly(9L * 512, 8192L - 9 * 512);
    }
}
