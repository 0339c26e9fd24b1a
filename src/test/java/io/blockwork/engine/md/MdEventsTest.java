package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.event.EngineEvent;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link MdArray#listen}: failures, member changes and the daemon's start, progress and end, as engine events. */
@Tag("unit")
class MdEventsTest {

    private static final long MIB = 1L << 20;
    private static final Duration LONG = Duration.ofSeconds(60);
    private final List<EngineEvent> events = new CopyOnWriteArrayList<>();
    private MdArray array;

    @AfterEach
    void stop() {
        array.stop();
    }

    private static List<Disk> disks(String prefix, int n) {
        List<Disk> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Disk.memory(prefix + i, 8 * MIB, DiskConfig.DEFAULT));
        }
        return out;
    }

    private <T extends EngineEvent> List<T> of(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** Whether an event of {@code then} came after the first of {@code first}. */
    private boolean toldAfter(Class<? extends EngineEvent> first, Class<? extends EngineEvent> then) {
        List<EngineEvent> told = List.copyOf(events);
        for (int i = 0; i < told.size(); i++) {
            if (first.isInstance(told.get(i))) {
                return told.subList(i + 1, told.size()).stream().anyMatch(then::isInstance);
            }
        }
        return false;
    }

    @Test
    void theInitialResyncIsToldFromItsFirstEventOn() {
        array = MdArray.create(MdArraySpec.of("ev-rs", MdLevel.RAID1).withSpeed(SpeedLimits.UNLIMITED), disks("rs", 2), null,
                events::add);
        await().atMost(LONG).until(() -> !of(EngineEvent.SyncEnded.class).isEmpty());
        EngineEvent.SyncStarted started = of(EngineEvent.SyncStarted.class).getFirst();
        assertThat(started.action()).isEqualTo("resync");
        assertThat(started.device()).isEqualTo("ev-rs");
        EngineEvent.SyncEnded ended = of(EngineEvent.SyncEnded.class).getFirst();
        assertThat(ended.completed()).isTrue();
        assertThat(ended.doneBytes()).isEqualTo(ended.totalBytes());
    }

    @Test
    void aFailureByRequestAndARecoveryOntoASpareAreToldWithProgressAtMostOnceASecond() {
        List<Disk> d = disks("rc", 2);
        array = MdArray.create(MdArraySpec.of("ev-rc", MdLevel.RAID1).withAssumeClean(true)
                .withSpeed(new SpeedLimits(2048, 2048)), d, null, events::add);
        array.fail("rc1");
        array.remove("rc1");
        array.add(Disk.memory("rc-spare", 8 * MIB, DiskConfig.DEFAULT));
        // 8 MiB at 2 MiB/s: about four seconds, so several progress events. The daemon tells the end
        // of the recovery, then the member change it made: wait for that, the last event, not the first.
        await().atMost(LONG).until(() -> toldAfter(EngineEvent.SyncEnded.class, EngineEvent.MembersChanged.class));

        EngineEvent.MemberFailed failed = of(EngineEvent.MemberFailed.class).getFirst();
        assertThat(failed.member()).isEqualTo("rc1");
        assertThat(failed.byRequest()).isTrue();
        EngineEvent.SyncStarted started = of(EngineEvent.SyncStarted.class).getFirst();
        assertThat(started.action()).isEqualTo("recover");
        assertThat(started.target()).isEqualTo("rc-spare");
        List<EngineEvent.SyncProgress> progress = of(EngineEvent.SyncProgress.class);
        assertThat(progress).hasSizeBetween(2, 8);
        assertThat(progress).allSatisfy(p -> assertThat(p.target()).isEqualTo("rc-spare"));
        assertThat(progress.getLast().doneBytes()).isGreaterThan(progress.getFirst().doneBytes());
        EngineEvent.SyncEnded ended = of(EngineEvent.SyncEnded.class).getFirst();
        assertThat(ended.completed()).isTrue();
        assertThat(events.indexOf(failed)).isLessThan(events.indexOf(started));
        assertThat(events.getLast()).isInstanceOf(EngineEvent.MembersChanged.class);
        assertThat(array.detail().activeDevices()).isEqualTo(2);
    }

    @Test
    void anIoErrorFailureIsToldWithItsReason() {
        List<Disk> d = disks("io", 2);
        array = MdArray.create(MdArraySpec.of("ev-io", MdLevel.RAID1).withAssumeClean(true), d, null, events::add);
        d.get(1).faults(new DiskFaults(false, true, false));
        SyncIo.write(array, 0, MemorySegment.ofArray(new byte[4096]));
        EngineEvent.MemberFailed failed = of(EngineEvent.MemberFailed.class).getFirst();
        assertThat(failed.member()).isEqualTo("io1");
        assertThat(failed.byRequest()).isFalse();
        assertThat(failed.reason()).contains("error");
    }
}
