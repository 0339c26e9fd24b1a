package io.blockwork.iostat.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** One device's per-second ring: rates from counter differences, latencies of the second, a fixed length. */
@Tag("unit")
class DeviceHistoryTest {

    private static final long SECOND = 1_000_000_000L;
    private static final MemorySegment BLOCK = MemorySegment.ofArray(new byte[4096]);

    @Test
    void aSampleIsTheSecondsDifferenceOfTheDevicesCounters() {
        Disk disk = Disk.memory("h", 1L << 20, DiskConfig.writeback()
                .withLatency(new LatencyModel(0, 200_000, 0, 0)));
        DeviceHistory h = new DeviceHistory(disk, 60);
        h.tick(100, 0);
        assertThat(h.latest()).as("the first tick only starts the count").isNull();
        for (int i = 0; i < 10; i++) {
            SyncIo.write(disk, i * 4096L, BLOCK);
        }
        SyncIo.read(disk, 0, MemorySegment.ofArray(new byte[8192]));
        SyncIo.flush(disk);
        h.tick(101, 2 * SECOND);

        IostatSample s = h.latest();
        assertThat(s.time()).isEqualTo(101);
        assertThat(s.writeIops()).as("10 writes over two seconds").isEqualTo(5.0);
        assertThat(s.readIops()).isEqualTo(0.5);
        assertThat(s.flushIops()).isEqualTo(0.5);
        assertThat(s.writeBytesPerSecond()).isEqualTo(10 * 4096 / 2.0);
        assertThat(s.readBytesPerSecond()).isEqualTo(4096.0);
        assertThat(s.writeP50Us()).as("the disk's 200 us writes").isBetween(150.0, 100_000.0);
        assertThat(s.writeP99Us()).isGreaterThanOrEqualTo(s.writeP50Us());
        assertThat(s.writeAwaitUs()).isPositive();
        assertThat(s.inFlight()).isZero();
        assertThat(s.queueDepth()).isPositive();
        assertThat(s.errors()).isZero();

        h.tick(102, 3 * SECOND);
        IostatSample idle = h.latest();
        assertThat(idle.iops()).isZero();
        assertThat(idle.writeP99Us()).as("no request completed in that second").isZero();
    }

    /**
     * The sampler runs at a fixed rate and names a tick by the wall-clock second nearest to it: a
     * tick more than half a second late (a busy machine, a GC pause) takes the next second's name,
     * and the overdue tick that follows at once got the same one. The history showed one second
     * twice (a chart's time axis must only go up); now the late tick's sample covers both.
     */
    @Test
    void aSecondThatWasAlreadySampledIsNotSampledAgain() {
        Disk disk = Disk.memory("h", 1L << 20, DiskConfig.DEFAULT);
        DeviceHistory h = new DeviceHistory(disk, 60);
        h.tick(100, 0);
        SyncIo.write(disk, 0, BLOCK);
        h.tick(101, SECOND);
        for (int i = 0; i < 3; i++) {
            SyncIo.write(disk, 0, BLOCK);
        }
        h.tick(103, 2_600_000_000L); // the tick of second 102, 0.6 s late
        SyncIo.write(disk, 0, BLOCK);
        h.tick(103, 2_610_000_000L); // the tick of second 103, overdue, at once
        h.tick(104, 4 * SECOND);

        List<IostatSample> all = h.last(60);
        assertThat(all).extracting(IostatSample::time).containsExactly(101L, 103L, 104L);
        assertThat(all.get(1).writeIops()).as("3 writes over 1.6 s").isCloseTo(3 / 1.6, within(1e-9));
        assertThat(all.get(2).writeIops()).as("the write of the skipped tick, counted in the next second")
                .isCloseTo(1 / 1.4, within(1e-9));
    }

    @Test
    void theRingKeepsItsLengthWhateverHappens() {
        Disk disk = Disk.memory("h", 1L << 20, DiskConfig.DEFAULT);
        DeviceHistory h = new DeviceHistory(disk, 5);
        for (int t = 0; t <= 20; t++) {
            SyncIo.write(disk, 0, BLOCK);
            h.tick(1000 + t, t * SECOND);
        }
        List<IostatSample> all = h.last(100);
        assertThat(all).hasSize(5);
        assertThat(all).extracting(IostatSample::time).containsExactly(1016L, 1017L, 1018L, 1019L, 1020L);
        assertThat(h.last(2)).extracting(IostatSample::time).containsExactly(1019L, 1020L);
    }
}
