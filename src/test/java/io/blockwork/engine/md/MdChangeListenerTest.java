package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link MdArray#onChange}: the changes an array makes on its own are told, each with the array
 * already in its new state (what a keeper of the configuration writes down); management calls are not.
 */
@Tag("unit")
class MdChangeListenerTest {

    private static final long MIB = 1L << 20;
    private static final Duration LONG = Duration.ofSeconds(60);
    private MdArray array;

    @AfterEach
    void stop() {
        array.stop();
    }

    /** What the array looked like at each call: "resync pending" and each member's name and state. */
    private final List<String> seen = new CopyOnWriteArrayList<>();

    private void listen() {
        array.onChange(() -> seen.add((array.resyncPending() ? "resyncing " : "clean ")
                + array.detail().members().stream().map(m -> m.device() + "=" + m.state().label()).toList()));
    }

    private static List<Disk> disks(int n) {
        List<Disk> out = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Disk.memory("cl" + i, 4 * MIB, DiskConfig.DEFAULT));
        }
        return out;
    }

    @Test
    void theEndOfTheInitialResyncIsTold() {
        List<Disk> d = disks(2);
        array = MdArray.create(MdArraySpec.of("md-cl", MdLevel.RAID1).withSpeed(new SpeedLimits(1024, 1024)), d);
        assertThat(array.resyncPending()).isTrue();
        listen();
        array.speedLimits(SpeedLimits.UNLIMITED);
        await().atMost(LONG).until(() -> !seen.isEmpty());
        assertThat(seen).containsExactly("clean [cl0=in_sync, cl1=in_sync]");
        assertThat(array.resyncPending()).isFalse();
    }

    @Test
    void anIoErrorASpareTakenIntoTheSlotAndTheRebuildAreToldButManagementCallsAreNot() {
        List<Disk> d = disks(3);
        array = MdArray.create(MdArraySpec.of("md-cl", MdLevel.RAID1).withSpeed(SpeedLimits.UNLIMITED)
                .withAssumeClean(true), d.subList(0, 2));
        listen();
        array.add(d.get(2));
        array.sync("pause");
        assertThat(seen).as("management calls are not told").isEmpty();

        d.get(1).faults(new DiskFaults(false, true, false));
        SyncIo.write(array, 0, MemorySegment.ofArray(new byte[4096]));
        assertThat(seen).as("told from the write's completion, the member already faulty").hasSize(1);
        assertThat(seen.getFirst()).contains("cl1=faulty");

        array.sync("resume");
        await().atMost(LONG).until(() -> seen.size() >= 3 && seen.getLast().contains("cl2=in_sync"));
        assertThat(seen.get(1)).as("the spare taken into the slot").contains("cl2=rebuilding");
        assertThat(seen.getLast()).isEqualTo("clean [cl0=in_sync, cl2=in_sync, cl1=faulty]");
    }

    @Test
    void aFailingListenerDoesNotBreakTheIoThatToldIt() {
        List<Disk> d = disks(2);
        array = MdArray.create(MdArraySpec.of("md-cl", MdLevel.RAID1).withAssumeClean(true), d);
        array.onChange(() -> {
            throw new IllegalStateException("listener bug");
        });
        d.get(0).faults(new DiskFaults(false, true, false));
        SyncIo.write(array, 0, MemorySegment.ofArray(new byte[4096]));
        assertThat(array.detail().failedDevices()).isEqualTo(1);
    }
}
