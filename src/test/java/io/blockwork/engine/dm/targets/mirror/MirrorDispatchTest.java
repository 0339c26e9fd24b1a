package io.blockwork.engine.dm.targets.mirror;

import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.random;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.ManualClock;
import io.blockwork.engine.block.QueuePlug;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Acceptance 4, seed 003: the mirror's timer is a hand-cranked clock, so "waits for a timer"
 * means "does not complete until the test moves the clock". Under {@code explicit} a synchronous
 * write completes with the clock never touched and no timer-driven unplug; under {@code timer}
 * its leg writes sit in the legs' plugged queues until 3 ms have passed.
 */
@Tag("unit")
class MirrorDispatchTest {

    private final ManualClock clock = new ManualClock();
    private final DmTestDevices devs = new DmTestDevices();
    @RegisterExtension
    final MirrorFixture fx = new MirrorFixture(devs);

    private MappedDevice mirror(BatchDispatch.Kind kind) {
        devs.config(devs.config().withClock(clock::nanos).withTimer(clock).withBatchDispatch(kind));
        devs.disk("d0", 4L << 20);
        devs.disk("d1", 4L << 20);
        return fx.create("m", "0 8192 mirror core 2 128 nosync 2 d0 0 d1 0\n");
    }

    @Test
    void underExplicitASynchronousWriteNeedsNoTimer() {
        MappedDevice m = mirror(BatchDispatch.Kind.EXPLICIT);
        SyncIo.write(m, 8192, random(1, 8192), BioFlags.FUA.withSync(true)); // returns: no timer was needed
        MirrorTarget t = target(m);
        assertThat(t.dispatch()).isEqualTo(BatchDispatch.Kind.EXPLICIT);
        assertThat(t.timerUnplugs()).isZero();
        assertThat(clock.nanos()).as("the clock never moved").isZero();
        MirrorFixture.assertSame(MirrorFixture.read(devs.find("d1"), 8192, 8192), random(1, 8192), "leg 1");
    }

    @Test
    void underTimerASynchronousWriteWaitsForTheUnplugTimer() {
        MappedDevice m = mirror(BatchDispatch.Kind.TIMER);
        Disk d0 = (Disk) devs.find("d0");
        Disk d1 = (Disk) devs.find("d1");
        CompletableFuture<IoStatus> done = new CompletableFuture<>();
        m.submit(Bio.write(8192, random(2, 8192), BioFlags.FUA.withSync(true), b -> done.complete(b.status())));

        // The worker sends one write to each leg, without SYNC, into queues nobody unplugs.
        await().atMost(MirrorFixture.PATIENCE).until(() -> clock.pending() == 2);
        assertThat(done).isNotDone();
        assertThat(d0.counters().writes() + d1.counters().writes()).as("nothing reached a leg yet").isZero();
        clock.advance(QueuePlug.UNPLUG_DELAY_NANOS - 1);
        assertThat(done).isNotDone();
        clock.advance(1);
        assertThat(done).isCompletedWithValue(IoStatus.OK);
        assertThat(target(m).timerUnplugs()).isEqualTo(2);
    }

    @Test
    void underExplicitAWriteToARegionAlreadyDirtySkipsTheWorker() {
        MappedDevice m = mirror(BatchDispatch.Kind.EXPLICIT);
        MirrorTarget t = target(m);
        SyncIo.write(m, 8192, random(3, 4096), BioFlags.FUA);
        assertThat(t.directWrites()).as("the first write marks the region: through the worker").isZero();
        assertThat(t.regionState(0)).isEqualTo(RegionState.DIRTY);

        SyncIo.write(m, 16384, random(4, 4096), BioFlags.FUA);
        assertThat(t.directWrites()).as("the region is recorded dirty: straight to the legs").isEqualTo(1);
        for (String leg : new String[] {"d0", "d1"}) {
            MirrorFixture.assertSame(MirrorFixture.read(devs.find(leg), 16384, 4096), random(4, 4096), leg);
        }

        // The quiet period records the region clean; the next write must mark it again, so it
        // goes through the worker, and only the one after takes the fast path.
        clock.advance(MirrorWorker.QUIET_NANOS);
        await().atMost(MirrorFixture.PATIENCE).until(() -> t.regionState(0) == RegionState.CLEAN);
        SyncIo.write(m, 8192, random(5, 4096), BioFlags.NONE);
        assertThat(t.directWrites()).isEqualTo(1);
        assertThat(t.regionState(0)).isEqualTo(RegionState.DIRTY);
        SyncIo.write(m, 8192, random(6, 4096), BioFlags.NONE);
        assertThat(t.directWrites()).isEqualTo(2);
    }

    @Test
    void underTimerEveryWriteStillGoesThroughTheWorker() {
        MappedDevice m = mirror(BatchDispatch.Kind.TIMER);
        MirrorTarget t = target(m);
        for (int i = 0; i < 2; i++) {
            int timersBefore = clock.pending(); // after the first write, its region's quiet-period timer
            CompletableFuture<IoStatus> done = new CompletableFuture<>();
            m.submit(Bio.write(8192, random(7 + i, 4096), BioFlags.FUA, b -> done.complete(b.status())));
            await().atMost(MirrorFixture.PATIENCE).until(() -> clock.pending() == timersBefore + 2);
            assertThat(done).as("write %d waits in the plugged queues", i).isNotDone();
            clock.advance(QueuePlug.UNPLUG_DELAY_NANOS);
            await().atMost(MirrorFixture.PATIENCE).until(done::isDone);
        }
        assertThat(t.directWrites()).isZero();
    }
}
