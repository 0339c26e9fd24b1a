package io.blockwork.engine.dm.targets.mirror;

import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.assertSame;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.awaitInSync;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.random;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.read;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.RecordingDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.StatusType;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The mirror's I/O paths, status lines and flush handling. */
@Tag("unit")
class MirrorTargetTest {

    private static final int REGION = 64 * 1024; // 128 sectors

    private final DmTestDevices devs = new DmTestDevices();
    @RegisterExtension
    final MirrorFixture fx = new MirrorFixture(devs);

    @Test
    void statusAndTableLinesHaveTheKernelsShape() {
        devs.disk("d0", 8L << 20);
        devs.disk("d1", 8L << 20);
        devs.disk("log", 1L << 20);
        MappedDevice m = fx.create("m", "0 8192 mirror core 2 128 nosync 2 d0 0 d1 0 1 handle_errors\n");
        assertThat(m.statusText()).isEqualTo("0 8192 mirror 2 d0 d1 64/64 1 AA 1 core\n");
        assertThat(m.tableText()).isEqualTo("0 8192 mirror core 2 128 nosync 2 d0 0 d1 0 1 handle_errors\n");

        MappedDevice n = fx.create("n", "0 8192 mirror disk 2 log 1024 2 d1 4096 d0 8192 3 io_throttle 4096 handle_errors\n");
        assertThat(n.tableText()).isEqualTo("0 8192 mirror disk 2 log 1024 2 d1 4096 d0 8192 3 handle_errors io_throttle 4096\n");
        assertThat(n.statusText()).matches("0 8192 mirror 2 d1 d0 \\d/8 1 AA 3 disk log A\n");
        n.message(0, "io_throttle 0");
        assertThat(n.tableText()).isEqualTo("0 8192 mirror disk 2 log 1024 2 d1 4096 d0 8192 1 handle_errors\n");
        assertThatThrownBy(() -> n.message(0, "io_throttle fast")).isInstanceOf(DmException.class)
                .hasMessageContaining("Invalid io_throttle (bytes per second): 'fast'");
        assertThatThrownBy(() -> n.message(0, "reshape")).isInstanceOf(DmException.class)
                .hasMessageContaining("mirror takes: io_throttle <bytes/s>");
    }

    @Test
    void theInitialSyncCopiesTheDefaultLegOntoTheOthers() {
        Disk d0 = devs.disk("d0", 4L << 20);
        Disk d1 = devs.disk("d1", 4L << 20);
        MirrorFixture.fill(d0, 0, 4L << 20, 7);
        MirrorFixture.fill(d1, 0, 4L << 20, 8);
        MappedDevice m = fx.create("m", "0 8192 mirror core 1 128 2 d0 0 d1 0\n");
        MirrorTarget t = target(m);
        awaitInSync(t);
        assertThat(m.statusText()).isEqualTo("0 8192 mirror 2 d0 d1 64/64 1 AA 1 core\n");
        assertSame(read(d1, 0, 4 << 20), read(d0, 0, 4 << 20), "leg 1 after the initial sync");
    }

    @Test
    void readsAreSpreadOverTheLegsByRegion() {
        Disk d0 = devs.disk("d0", 4L << 20);
        Disk d1 = devs.disk("d1", 4L << 20);
        MappedDevice m = fx.create("m", "0 8192 mirror core 2 128 nosync 2 d0 0 d1 0\n");
        long r0 = d0.counters().reads();
        long r1 = d1.counters().reads();
        for (int region = 0; region < 8; region++) {
            read(m, (long) region * REGION, 4096);
        }
        assertThat(d0.counters().reads() - r0).isEqualTo(4);
        assertThat(d1.counters().reads() - r1).isEqualTo(4);
    }

    @Test
    void readsOfRegionsOutOfSyncComeFromTheDefaultLeg() {
        Disk d0 = devs.disk("d0", 4L << 20);
        Disk d1 = devs.disk("d1", 4L << 20);
        MirrorFixture.fill(d0, 0, 4L << 20, 3);
        MappedDevice m = fx.create("m", "0 8192 mirror core 1 128 2 d0 0 d1 0 2 io_throttle 1\n");
        long r1 = d1.counters().reads();
        assertSame(read(m, REGION * 5L, 8192), read(d0, REGION * 5L, 8192), "region 5, out of sync");
        assertThat(d1.counters().reads()).isEqualTo(r1);
    }

    @Test
    void aFailedReadMarksTheLegAndIsServedByAnother() {
        Disk d0 = devs.disk("d0", 4L << 20);
        devs.disk("d1", 4L << 20);
        MappedDevice m = fx.create("m", "0 8192 mirror core 2 128 nosync 2 d0 0 d1 0\n");
        SyncIo.write(m, 0, random(1, 8192));
        d0.faults(new DiskFaults(true, false, false));
        assertSame(read(m, 0, 8192), random(1, 8192), "region 0, whose reads start at d0");
        assertThat(target(m).health()).isEqualTo("RA");
        d0.faults(DiskFaults.NONE);
        long before = d0.counters().reads();
        read(m, 0, 8192);
        assertThat(d0.counters().reads()).as("a leg with errors is not read again").isEqualTo(before);
    }

    @Test
    void withoutHandleErrorsAFailedLegWriteReachesTheCaller() {
        devs.disk("d0", 4L << 20);
        Disk d1 = devs.disk("d1", 4L << 20);
        MappedDevice m = fx.create("m", "0 8192 mirror core 2 128 nosync 2 d0 0 d1 0\n");
        d1.faults(new DiskFaults(false, true, false));
        assertThat(SyncIo.execute(m, BioOp.WRITE, REGION * 3L, 4096, BioFlags.NONE, random(2, 4096)))
                .isEqualTo(IoStatus.IO_ERROR);
        MirrorTarget t = target(m);
        assertThat(t.health()).isEqualTo("AD");
        assertThat(t.regionState(3)).as("the legs may differ there").isIn(RegionState.NOSYNC, RegionState.RECOVERING);
        d1.faults(DiskFaults.NONE);
        m.suspend(); // a recovery that failed meanwhile is tried again from the next resume on
        m.resume();
        awaitInSync(t); // the region is recovered from the default leg now that the leg works again
        assertSame(read(d1, REGION * 3L, 4096), read(devs.find("d0"), REGION * 3L, 4096), "region 3 recovered");
    }

    @Test
    void withHandleErrorsAFailedLegIsLeftOutAndWritesGoOn() {
        Disk d0 = devs.disk("d0", 4L << 20);
        Disk d1 = devs.disk("d1", 4L << 20);
        MappedDevice m = fx.create("m", "0 8192 mirror core 2 128 nosync 2 d0 0 d1 0 1 handle_errors\n");
        long events = m.info().eventNumber();
        d1.faults(new DiskFaults(false, true, false));
        SyncIo.write(m, 0, random(3, 4096));
        MirrorTarget t = target(m);
        assertThat(t.health()).isEqualTo("AD");
        assertThat(m.info().eventNumber()).as("a dm event for the failure").isGreaterThan(events);
        long writesToD1 = d1.counters().writes();
        SyncIo.write(m, REGION * 7L, random(4, 4096), BioFlags.FUA);
        SyncIo.flush(m);
        assertThat(d1.counters().writes()).as("no more writes to the failed leg").isEqualTo(writesToD1);
        assertSame(read(m, REGION * 7L, 4096), random(4, 4096), "written after the failure");
        assertSame(read(d0, 0, 4096), random(3, 4096), "the surviving leg");
        assertThat(m.statusText()).isEqualTo("0 8192 mirror 2 d0 d1 62/64 1 AD 1 core\n");
    }

    @ParameterizedTest(name = "{0} then power cut of leg {1}")
    @CsvSource({"flush, 0", "flush, 1", "fua, 0", "fua, 1"})
    void durableWritesSurviveAPowerCutOfEitherLeg(String how, int leg) {
        Disk d0 = devs.disk("d0", 4L << 20);
        Disk d1 = devs.disk("d1", 4L << 20);
        MappedDevice m = fx.create("m", "0 8192 mirror core 1 128 2 d0 0 d1 0\n");
        awaitInSync(target(m));
        long at = REGION * 9L + 4096;
        if (how.equals("flush")) {
            SyncIo.write(m, at, random(5, 16384));
            SyncIo.flush(m);
        } else {
            SyncIo.write(m, at, random(5, 16384), BioFlags.FUA);
        }
        (leg == 0 ? d0 : d1).powerCut();
        assertSame(read(m, at, 16384), random(5, 16384), "through the mirror");
        assertSame(read(d0, at, 16384), random(5, 16384), "leg 0");
        assertSame(read(d1, at, 16384), random(5, 16384), "leg 1");
    }

    @Test
    void legWritesCarryFuaButNeverSyncAndEmptyFlushesReachEveryLegAndTheLog() {
        RecordingDevice leg0 = new RecordingDevice(4L << 20, DeviceLimits.of(512));
        leg0.rename("r0");
        devs.add(leg0);
        Disk d1 = devs.disk("d1", 4L << 20);
        Disk log = devs.disk("log", 1L << 20);
        MappedDevice m = fx.create("m", "0 8192 mirror disk 3 log 128 nosync 2 r0 0 d1 0\n");
        assertThat(target(m).numFlushBios()).isEqualTo(3);
        leg0.seen.clear();
        SyncIo.write(m, 8192, random(6, 4096), BioFlags.FUA.withSync(true));
        SyncIo.write(m, 16384, random(7, 4096), BioFlags.SYNC);
        List<Bio> writes = leg0.seen.stream().filter(b -> b.op() == BioOp.WRITE).toList();
        assertThat(writes).hasSize(2);
        assertThat(writes.get(0).flags()).isEqualTo(BioFlags.FUA);
        assertThat(writes.get(1).flags()).isEqualTo(BioFlags.NONE);

        long f1 = d1.counters().flushes();
        long fl = log.counters().flushes();
        leg0.seen.clear();
        SyncIo.flush(m);
        assertThat(leg0.seen).extracting(Bio::op).containsExactly(BioOp.FLUSH);
        assertThat(d1.counters().flushes()).isEqualTo(f1 + 1);
        assertThat(log.counters().flushes()).isEqualTo(fl + 1);
    }

    @Test
    void aFlushFailingOnOneLegFailsOnlyWithoutHandleErrors() {
        devs.disk("d0", 4L << 20);
        Disk d1 = devs.disk("d1", 4L << 20);
        devs.disk("e0", 4L << 20);
        Disk e1 = devs.disk("e1", 4L << 20);
        MappedDevice plain = fx.create("plain", "0 8192 mirror core 2 128 nosync 2 d0 0 d1 0\n");
        MappedDevice handled = fx.create("handled", "0 8192 mirror core 2 128 nosync 2 e0 0 e1 0 1 handle_errors\n");
        d1.faults(new DiskFaults(false, false, true));
        e1.faults(new DiskFaults(false, false, true));
        assertThat(SyncIo.execute(plain, BioOp.FLUSH, 0, 0, BioFlags.NONE, null)).isEqualTo(IoStatus.IO_ERROR);
        assertThat(SyncIo.execute(handled, BioOp.FLUSH, 0, 0, BioFlags.NONE, null)).isEqualTo(IoStatus.OK);
        assertThat(target(plain).health()).isEqualTo("AF");
        assertThat(target(handled).health()).isEqualTo("AF");
        assertThat(plain.status(StatusType.INFO).getFirst().status()).isEqualTo("2 d0 d1 64/64 1 AF 1 core");
    }

    @Test
    void aLogDeviceThatFailsWritesIsReportedAndWritesGoOn() {
        Disk d0 = devs.disk("d0", 4L << 20);
        Disk d1 = devs.disk("d1", 4L << 20);
        Disk log = devs.disk("log", 1L << 20);
        MappedDevice m = fx.create("m", "0 8192 mirror disk 3 log 128 nosync 2 d0 0 d1 0 1 handle_errors\n");
        log.faults(new DiskFaults(false, true, false));
        SyncIo.write(m, REGION * 2L, random(9, 4096));
        assertThat(m.statusText()).isEqualTo("0 8192 mirror 2 d0 d1 64/64 1 AA 3 disk log D\n");
        assertSame(read(d0, REGION * 2L, 4096), random(9, 4096), "leg 0");
        assertSame(read(d1, REGION * 2L, 4096), random(9, 4096), "leg 1");
    }

    @Test
    void discardsAndWriteZeroesReachEveryLeg() {
        Disk d0 = devs.disk("d0", 4L << 20);
        Disk d1 = devs.disk("d1", 4L << 20);
        MappedDevice m = fx.create("m", "0 8192 mirror core 2 128 nosync 2 d0 0 d1 0\n");
        SyncIo.write(m, 0, random(8, REGION * 2));
        SyncIo.discard(m, 4096, REGION - 4096);
        SyncIo.writeZeroes(m, REGION, REGION);
        byte[] zeros = new byte[REGION * 2 - 4096];
        for (Disk d : new Disk[] {d0, d1}) {
            assertSame(read(d, 4096, zeros.length), java.lang.foreign.MemorySegment.ofArray(zeros), d.name());
        }
    }
}
