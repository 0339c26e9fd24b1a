package io.blockwork.engine.dm.targets.mirror;

import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.assertSame;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.awaitInSync;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.random;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.read;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Acceptance 2: initial sync, recovery onto a replaced leg with visible progress, and writes meeting recovery. */
@Tag("unit")
class MirrorRecoveryTest {

    private static final int MIB = 1 << 20;
    private static final int REGION = 64 * 1024;

    private final DmTestDevices devs = new DmTestDevices();
    @RegisterExtension
    final MirrorFixture fx = new MirrorFixture(devs);

    @Test
    void aReplacedLegIsResyncedWithProgressVisibleInTheStatus() {
        Disk d0 = devs.disk("d0", 4L * MIB);
        Disk d1 = devs.disk("d1", 4L * MIB);
        Disk d2 = devs.disk("d2", 4L * MIB);
        MirrorFixture.fill(d2, 0, 4L * MIB, 99); // the replacement holds stale data
        MappedDevice m = fx.create("m", "0 8192 mirror core 2 128 nosync 2 d0 0 d1 0 1 handle_errors\n");
        MirrorFixture.fill(m, 0, 4L * MIB, 1);

        d1.faults(new DiskFaults(false, true, false));
        SyncIo.write(m, REGION * 10L, random(2, 8192));
        assertThat(m.statusText()).isEqualTo("0 8192 mirror 2 d0 d1 63/64 1 AD 1 core\n");

        // dmsetup load + resume with d2 in d1's place; recovery throttled to 2 MiB/s (about 2 s).
        m.load("0 8192 mirror core 1 128 2 d0 0 d2 0 3 handle_errors io_throttle 2097152\n", devs);
        m.resume();
        MirrorTarget t = target(m);
        assertThat(t.health()).isEqualTo("AA");
        long events = m.info().eventNumber();
        List<Long> seen = new ArrayList<>();
        await().atMost(MirrorFixture.PATIENCE).pollInterval(Duration.ofMillis(2)).until(() -> {
            // progress as dmsetup status shows it: "<in-sync>/<total>" in the INFO line
            long now = Long.parseLong(m.statusText().split(" ")[6].split("/")[0]);
            if (seen.isEmpty() || seen.getLast() != now) {
                seen.add(now);
            }
            return now == 64;
        });
        assertThat(seen).as("in-sync counts seen while recovery ran").isSorted()
                .anyMatch(n -> n > 0 && n < 64);
        assertThat(m.statusText()).isEqualTo("0 8192 mirror 2 d0 d2 64/64 1 AA 1 core\n");
        await().atMost(MirrorFixture.PATIENCE).until(() -> m.info().eventNumber() > events); // "in sync" is an event
        assertSame(read(d2, 0, 4 * MIB), read(d0, 0, 4 * MIB), "the replacement after recovery");
        assertSame(read(m, REGION * 10L, 8192), random(2, 8192), "written while degraded");
    }

    @Test
    void aRecoveredRegionIsDurableOnTheLegBeforeItCountsAsInSync() {
        Disk d0 = devs.disk("d0", 4L * MIB);
        Disk d1 = devs.disk("d1", 4L * MIB);
        MirrorFixture.fill(d0, 0, 4L * MIB, 9);
        SyncIo.flush(d0);
        MappedDevice m = fx.create("m", "0 8192 mirror core 1 128 2 d0 0 d1 0\n");
        awaitInSync(target(m));
        d1.powerCut(); // the copies were written without FUA: only a flush made them stay
        assertSame(read(d1, 0, 4 * MIB), read(d0, 0, 4 * MIB), "leg 1 after a power cut");
    }

    @Test
    void readsAndWritesDuringRecoveryKeepTheirData() {
        Disk d0 = devs.disk("d0", 4L * MIB);
        Disk d1 = devs.disk("d1", 4L * MIB);
        MirrorFixture.fill(d0, 0, 4L * MIB, 5);
        MirrorFixture.fill(d1, 0, 4L * MIB, 6);
        MappedDevice m = fx.create("m", "0 8192 mirror core 1 128 2 d0 0 d1 0 2 io_throttle 8388608\n");
        for (int i = 0; i < 64; i++) {
            long at = (long) i * REGION + 4096;
            assertSame(read(m, at, 4096), read(d0, at, 4096), "region " + i + " read during recovery");
            SyncIo.write(m, at, random(100 + i, 4096));
        }
        awaitInSync(target(m));
        for (int i = 0; i < 64; i++) {
            long at = (long) i * REGION + 4096;
            assertSame(read(d0, at, 4096), random(100 + i, 4096), "leg 0, region " + i);
            assertSame(read(d1, at, 4096), random(100 + i, 4096), "leg 1, region " + i);
        }
        assertSame(read(d1, 0, 4 * MIB), read(d0, 0, 4 * MIB), "legs after recovery");
    }

    @Test
    void aWriteToARegionBeingRecoveredWaitsForTheRecovery() {
        Disk d0 = devs.disk("d0", 4L * MIB);
        Disk d1 = devs.disk("d1", 4L * MIB);
        MirrorFixture.fill(d0, 0, 4L * MIB, 7);
        // 4 KiB/s: copying the first 64 KiB region takes 16 s, far longer than this test looks.
        MappedDevice m = fx.create("m", "0 8192 mirror core 1 128 2 d0 0 d1 0 2 io_throttle 4096\n");
        MirrorTarget t = target(m);
        await().atMost(MirrorFixture.PATIENCE).until(() -> t.regionState(0) == RegionState.RECOVERING);

        CompletableFuture<IoStatus> done = new CompletableFuture<>();
        m.submit(Bio.write(8192, random(8, 8192), BioFlags.FUA, b -> done.complete(b.status())));
        await().atMost(MirrorFixture.PATIENCE).until(() -> t.delayedWrites() == 1);
        assertThat(done).as("waiting for region 0's recovery").isNotDone();

        m.message(0, "io_throttle 0");
        await().atMost(MirrorFixture.PATIENCE).until(done::isDone);
        assertThat(done).isCompletedWithValue(IoStatus.OK);
        assertThat(t.regionState(0)).isIn(RegionState.DIRTY, RegionState.CLEAN);
        assertSame(read(d1, 8192, 8192), random(8, 8192), "leg 1: the write landed after the copy");
        assertSame(read(d1, 0, REGION), read(d0, 0, REGION), "region 0 on both legs");
    }

    @Test
    void aCoreLogStartsOverAtEveryLoadWhileADiskLogResumesWhereItWas() {
        devs.disk("d0", 4L * MIB);
        devs.disk("d1", 4L * MIB);
        devs.disk("e0", 4L * MIB);
        devs.disk("e1", 4L * MIB);
        devs.disk("log", MIB);
        // 512 KiB/s: eight 64 KiB regions a second.
        String core = "0 8192 mirror core 1 128 2 d0 0 d1 0 2 io_throttle 524288\n";
        String disk = "0 8192 mirror disk 2 log 128 2 e0 0 e1 0 2 io_throttle 524288\n";
        MappedDevice c = fx.create("c", core);
        MappedDevice d = fx.create("d", disk);
        await().atMost(MirrorFixture.PATIENCE).until(() -> target(c).syncedRegions() >= 3 && target(d).syncedRegions() >= 3);

        c.load(core, devs);
        c.resume();
        assertThat(target(c).syncedRegions()).as("core log: a new table knows nothing").isLessThan(3);

        d.load(disk, devs);
        d.resume(); // the old table's suspend finished its copies and recorded them clean
        assertThat(target(d).syncedRegions()).as("disk log: the new table starts where the old one was").isGreaterThanOrEqualTo(3);
    }
}
