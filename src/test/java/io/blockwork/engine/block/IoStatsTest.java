package io.blockwork.engine.block;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.disk.LatencyModel;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A device's accounting: counters at submission, errors, requests in flight and latencies at completion. */
@Tag("unit")
class IoStatsTest {

    private static final MemorySegment BLOCK = MemorySegment.ofArray(new byte[4096]);

    @Test
    void everyCompletedRequestLandsInItsOperationsHistogram() {
        Disk disk = Disk.memory("h", 1L << 20, DiskConfig.writeback());
        for (int i = 0; i < 7; i++) {
            SyncIo.write(disk, i * 4096L, BLOCK);
        }
        for (int i = 0; i < 5; i++) {
            SyncIo.read(disk, i * 4096L, MemorySegment.ofArray(new byte[4096]));
        }
        SyncIo.flush(disk);
        SyncIo.discard(disk, 0, 4096);

        IoStats stats = disk.stats();
        assertThat(stats.writeLatency().count()).isEqualTo(7);
        assertThat(stats.readLatency().count()).isEqualTo(5);
        assertThat(stats.flushLatency().count()).isEqualTo(1);
        assertThat(stats.discardLatency().count()).isEqualTo(1);
        IoCounters c = disk.counters();
        assertThat(c.writes()).isEqualTo(7);
        assertThat(c.reads()).isEqualTo(5);
        assertThat(c.inFlight()).isZero();
        assertThat(c.errors()).isZero();
    }

    @Test
    void requestsInFlightAreCountedUntilTheyComplete() {
        RecordingDevice d = new RecordingDevice(1L << 20, DeviceLimits.of(512));
        d.hold(true);
        for (int i = 0; i < 3; i++) {
            d.submit(Bio.write(i * 4096L, BLOCK, BioFlags.NONE, b -> { }));
        }
        assertThat(d.counters().inFlight()).isEqualTo(3);
        assertThat(d.stats().writeLatency().count()).isZero();
        d.release();
        assertThat(d.counters().inFlight()).isZero();
        assertThat(d.stats().writeLatency().count()).isEqualTo(3);
    }

    @Test
    void errorsAreCountedAsRequestsCompleteRefusedOnesIncluded() {
        Disk disk = Disk.memory("e", 1L << 20, DiskConfig.DEFAULT);
        disk.faults(new DiskFaults(true, false, false));
        assertThat(SyncIo.execute(disk, BioOp.READ, 0, 4096, BioFlags.NONE, MemorySegment.ofArray(new byte[4096])))
                .isEqualTo(IoStatus.IO_ERROR);
        assertThat(SyncIo.execute(disk, BioOp.READ, 100, 4096, BioFlags.NONE, MemorySegment.ofArray(new byte[4096])))
                .isEqualTo(IoStatus.INVALID);
        assertThat(disk.counters().errors()).isEqualTo(2);
        assertThat(disk.counters().inFlight()).isZero();
    }

    @Test
    void aStackedDeviceAndTheDeviceBelowEachAccountTheirOwnRequests() {
        Disk disk = Disk.memory("below", 1L << 20, DiskConfig.DEFAULT);
        var above = new AbstractBlockDevice("above") {
            @Override
            protected void dispatch(Bio bio) {
                disk.submit(bio.remap(bio.offset()));
                bio.endio();
            }

            @Override
            public long sizeBytes() {
                return disk.sizeBytes();
            }

            @Override
            public DeviceLimits limits() {
                return disk.limits();
            }
        };
        SyncIo.write(above, 0, BLOCK);
        assertThat(above.stats().writeLatency().count()).isEqualTo(1);
        assertThat(disk.stats().writeLatency().count()).isEqualTo(1);
    }

    @Test
    void latenciesReflectTheDevicesServiceTimeAndTimingCanBeTurnedOff() {
        Disk disk = Disk.memory("slow", 1L << 20, DiskConfig.DEFAULT.withLatency(new LatencyModel(2_000_000, 0, 0, 0)));
        SyncIo.read(disk, 0, MemorySegment.ofArray(new byte[4096]));
        assertThat(disk.stats().readLatency().percentile(0.5)).isBetween(1_500_000L, 100_000_000L);

        disk.stats().timing(false);
        SyncIo.read(disk, 0, MemorySegment.ofArray(new byte[4096]));
        assertThat(disk.stats().readLatency().count()).as("not timed while off").isEqualTo(1);
        assertThat(disk.counters().reads()).isEqualTo(2);
        assertThat(disk.counters().inFlight()).isZero();
    }
}
