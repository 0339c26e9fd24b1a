package io.blockwork.engine.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The pre-2.6.39 queue plug: a forgotten unplug costs a timer period, an explicit one does not. */
@Tag("unit")
class QueuePlugTest {

    private final ManualClock clock = new ManualClock();
    private final RecordingDevice disk = new RecordingDevice(1 << 20, DeviceLimits.of(512));
    private final QueuePlug plug = new QueuePlug(disk, clock);
    private final AtomicInteger completed = new AtomicInteger();

    private Bio write(long offset, BioFlags flags) {
        return Bio.write(offset, MemorySegment.ofArray(new byte[4096]), flags, b -> completed.incrementAndGet());
    }

    @Test
    void aPlugNobodyUnplugsIsReleasedByTheTimer() {
        plug.submit(write(0, BioFlags.NONE));
        assertThat(completed).hasValue(0);
        clock.advance(QueuePlug.UNPLUG_DELAY_NANOS - 1);
        assertThat(completed).as("still plugged just before 3 ms").hasValue(0);
        clock.advance(1);
        assertThat(completed).hasValue(1);
        assertThat(plug.timerUnplugs()).isEqualTo(1);
    }

    @Test
    void anExplicitUnplugReleasesAtOnceAndDisarmsTheTimer() {
        plug.submit(write(0, BioFlags.NONE));
        plug.unplug();
        assertThat(completed).hasValue(1);
        clock.advance(QueuePlug.UNPLUG_DELAY_NANOS);
        assertThat(plug.timerUnplugs()).isZero();
        assertThat(plug.explicitUnplugs()).isEqualTo(1);
    }

    @Test
    void theFourthRequestUnplugsTheQueue() {
        for (int i = 0; i < QueuePlug.UNPLUG_THRESHOLD - 1; i++) {
            plug.submit(write(i * 4096L, BioFlags.NONE));
        }
        assertThat(completed).hasValue(0);
        plug.submit(write(12288, BioFlags.NONE));
        assertThat(completed).hasValue(QueuePlug.UNPLUG_THRESHOLD);
    }

    @Test
    void aSyncBioGoesStraightThrough() {
        plug.submit(write(0, BioFlags.SYNC));
        assertThat(completed).hasValue(1);
        assertThat(clock.pending()).isZero();
    }
}
