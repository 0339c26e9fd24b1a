package io.blockwork.engine.dm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.RecordingDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.dm.targets.Targets;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 3, the deterministic half: suspend waits for I/O in flight, a suspended device holds
 * new I/O and releases it on resume (through the table live by then), and noflush keeps I/O a
 * target pushes back. The lower device holds bios until the test releases them, so every step
 * happens in a known order; "suspend has not returned" is observed as the suspending thread
 * parked in its wait, never by sleeping.
 */
@Tag("unit")
class SuspendResumeTest {

    private final DmTestDevices devs = new DmTestDevices();
    private final RecordingDevice rec = devs.add(new RecordingDevice(16L << 20, DeviceLimits.of(512)));

    private static MemorySegment block(int fill) {
        byte[] b = new byte[4096];
        Arrays.fill(b, (byte) fill);
        return MemorySegment.ofArray(b);
    }

    /** Submits without waiting; the future completes with the bio's status. */
    private static CompletableFuture<IoStatus> submit(MappedDevice d, BioOp op, long offset) {
        CompletableFuture<IoStatus> f = new CompletableFuture<>();
        Bio bio = op == BioOp.FLUSH ? Bio.flush(b -> f.complete(b.status()))
                : Bio.of(op, offset, 4096, BioFlags.NONE, block(1), b -> f.complete(b.status()));
        d.submit(bio);
        return f;
    }

    private static Thread parkedIn(Runnable r) {
        Thread t = Thread.ofPlatform().start(r);
        await().atMost(Duration.ofSeconds(60)).until(() -> t.getState() == Thread.State.WAITING
                || t.getState() == Thread.State.TIMED_WAITING || !t.isAlive());
        return t;
    }

    @Test
    void suspendWaitsForIoInFlight() throws Exception {
        MappedDevice d = devs.create("v", "0 8192 linear rec 0\n");
        rec.hold(true);
        CompletableFuture<IoStatus> write = submit(d, BioOp.WRITE, 0);
        assertThat(d.inFlight()).isEqualTo(1);

        Thread suspender = parkedIn(d::suspend);
        assertThat(suspender.isAlive()).as("suspend returned with a write in flight").isTrue();
        assertThat(d.info().state()).isEqualTo(DeviceInfo.State.ACTIVE);

        rec.release();
        suspender.join();
        assertThat(write.get()).isEqualTo(IoStatus.OK);
        assertThat(d.info().state()).isEqualTo(DeviceInfo.State.SUSPENDED);
        assertThat(d.inFlight()).isZero();
    }

    @Test
    void aSuspendedDeviceHoldsIoAndReleasesItOnResume() throws Exception {
        MappedDevice d = devs.create("v", "0 8192 linear rec 0\n");
        d.suspend();
        CompletableFuture<IoStatus> write = submit(d, BioOp.WRITE, 8192);
        CompletableFuture<IoStatus> flush = submit(d, BioOp.FLUSH, 0);
        CompletableFuture<IoStatus> preflush = new CompletableFuture<>();
        d.submit(Bio.write(0, block(2), BioFlags.PREFLUSH, b -> preflush.complete(b.status())));

        assertThat(rec.seen).as("nothing reaches the table while suspended").isEmpty();
        assertThat(write).isNotDone();
        assertThat(flush).isNotDone();
        assertThat(preflush).isNotDone();

        d.resume();
        assertThat(write.get()).isEqualTo(IoStatus.OK);
        assertThat(flush.get()).isEqualTo(IoStatus.OK);
        assertThat(preflush.get()).isEqualTo(IoStatus.OK);
        assertThat(rec.seen).extracting(Bio::op).containsExactlyInAnyOrder(BioOp.WRITE, BioOp.FLUSH, BioOp.FLUSH, BioOp.WRITE);
    }

    @Test
    void heldIoGoesThroughTheTableSwappedInOnResume() throws Exception {
        Disk d0 = devs.disk("d0", 4L << 20);
        Disk d1 = devs.disk("d1", 4L << 20);
        MappedDevice d = devs.create("v", "0 4096 linear d0 0\n");
        d.suspend();
        CompletableFuture<IoStatus> write = new CompletableFuture<>();
        d.submit(Bio.write(4096, block(9), BioFlags.NONE, b -> write.complete(b.status())));
        d.load("0 4096 linear d1 2048\n", devs);
        assertThat(write).isNotDone();
        long events = d.info().eventNumber();

        d.resume();
        assertThat(write.get()).isEqualTo(IoStatus.OK);
        MemorySegment back = MemorySegment.ofArray(new byte[4096]);
        SyncIo.read(d1, 2048 * 512L + 4096, back);
        assertThat(back.mismatch(block(9))).as("the held write went through the new table").isEqualTo(-1L);
        SyncIo.read(d0, 4096, back);
        assertThat(back.mismatch(block(0))).isEqualTo(-1L);
        assertThat(d.info().eventNumber()).isEqualTo(events + 1);
        assertThat(d.tableText()).isEqualTo("0 4096 linear d1 2048\n");
        assertThat(d.info().inactiveTable()).isFalse();
    }

    @Test
    void resumeOfAnActiveDeviceWithALoadedTableSuspendsSwapsAndResumes() throws Exception {
        MappedDevice d = devs.create("v", "0 8192 linear rec 0\n");
        rec.hold(true);
        CompletableFuture<IoStatus> inFlight = submit(d, BioOp.WRITE, 0);
        d.load("0 8192 linear rec 8192\n", devs);
        Thread resumer = parkedIn(() -> {
            try {
                d.resume();
            } catch (TableException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(d.tableText()).as("no swap while I/O of the old table is in flight").isEqualTo("0 8192 linear rec 0\n");
        rec.hold(false);
        rec.release();
        resumer.join();
        assertThat(inFlight.get()).isEqualTo(IoStatus.OK);
        assertThat(d.tableText()).isEqualTo("0 8192 linear rec 8192\n");
        assertThat(d.info().state()).isEqualTo(DeviceInfo.State.ACTIVE);
    }

    @Test
    void aSuspendThatCannotDrainTimesOutAndLeavesTheDeviceActive() throws Exception {
        MappedDevice d = devs.create("v", "0 8192 linear rec 0\n");
        rec.hold(true);
        CompletableFuture<IoStatus> stuck = submit(d, BioOp.WRITE, 0);
        assertThatThrownBy(() -> d.suspend(false, Duration.ofMillis(20)))
                .isInstanceOf(DmException.class)
                .hasMessageContaining("1 I/Os still in flight");
        assertThat(d.info().state()).isEqualTo(DeviceInfo.State.ACTIVE);
        rec.hold(false);
        assertThat(submit(d, BioOp.WRITE, 4096).get()).as("I/O flows again").isEqualTo(IoStatus.OK);
        rec.release();
        assertThat(stuck.get()).isEqualTo(IoStatus.OK);
    }

    @Test
    void noflushKeepsIoATargetPushesBackAndReplaysItThroughTheNewTable() throws Exception {
        devs.config(devs.config().withRegistry(Targets.REGISTRY.with(HoldingTarget.TYPE)));
        Disk d0 = devs.disk("d0", 4L << 20);
        MappedDevice d = devs.create("v", "0 8192 holding d0\n");
        CompletableFuture<IoStatus> write = new CompletableFuture<>();
        d.submit(Bio.write(0, block(5), BioFlags.NONE, b -> write.complete(b.status())));
        assertThat(HoldingTarget.last.heldCount()).isEqualTo(1);

        d.suspend(true); // presuspend completes the held bio; its end-io pushes it back
        assertThat(d.info().state()).isEqualTo(DeviceInfo.State.SUSPENDED);
        assertThat(write).as("pushed back, not failed").isNotDone();
        assertThat(d.inFlight()).isZero();

        d.load("0 8192 linear d0 0\n", devs);
        d.resume();
        assertThat(write.get()).isEqualTo(IoStatus.OK);
        MemorySegment back = MemorySegment.ofArray(new byte[4096]);
        SyncIo.read(d0, 0, back);
        assertThat(back.mismatch(block(5))).isEqualTo(-1L);
    }

    @Test
    void withoutNoflushAPushedBackBioFails() throws Exception {
        devs.config(devs.config().withRegistry(Targets.REGISTRY.with(HoldingTarget.TYPE)));
        devs.disk("d0", 4L << 20);
        MappedDevice d = devs.create("v", "0 8192 holding d0\n");
        CompletableFuture<IoStatus> write = submit(d, BioOp.WRITE, 0);
        d.suspend(false);
        assertThat(write.get()).isEqualTo(IoStatus.IO_ERROR);

        HoldingTarget.last.pushBackAtMap = true;
        d.resume();
        assertThat(submit(d, BioOp.WRITE, 0).get()).as("REQUEUE from map outside a noflush suspend").isEqualTo(IoStatus.IO_ERROR);
    }

    @Test
    void aSuspendedDeviceIsRemovedWithItsHeldIoFailed() throws Exception {
        MappedDevice d = devs.create("v", "0 8192 linear rec 0\n");
        d.suspend();
        CompletableFuture<IoStatus> held = submit(d, BioOp.WRITE, 0);
        d.remove();
        assertThat(held.get()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(submit(d, BioOp.FLUSH, 0).get()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(d.info().state()).isEqualTo(DeviceInfo.State.REMOVED);
        assertThatThrownBy(d::resume).isInstanceOf(DmException.class).hasMessageContaining("has been removed");
    }

    @Test
    void suspendAndResumeCallTheTargetsHooksInOrder() throws Exception {
        AtomicReference<StringBuilder> log = new AtomicReference<>(new StringBuilder());
        TargetType traced = new TargetType("traced", TargetType.version(1, 0, 0), "", 0, 0, (ti, args) -> new Target() {
            @Override public MapResult map(Bio bio) { return MapResult.OK; }
            @Override public String status(StatusType type) { return ""; }
            @Override public java.util.List<DeviceRange> devices() { return java.util.List.of(); }
            @Override public void presuspend(boolean noflush) { log.get().append("presuspend(").append(noflush).append(") "); }
            @Override public void postsuspend() { log.get().append("postsuspend "); }
            @Override public void preresume() { log.get().append("preresume "); }
            @Override public void resume() { log.get().append("resume "); }
            @Override public void close() { log.get().append("close "); }
        });
        devs.config(devs.config().withRegistry(Targets.REGISTRY.with(traced)));
        MappedDevice d = devs.create("v", "0 8 traced\n");
        d.suspend(true);
        d.resume();
        d.load("0 8 traced\n", devs);
        d.resume();
        d.remove();
        assertThat(log.get().toString().strip()).isEqualTo(
                "preresume resume presuspend(true) postsuspend preresume resume "   // create, suspend, resume
                + "presuspend(false) postsuspend preresume close resume "          // swap: the new table's preresume, the old one closed
                + "presuspend(true) postsuspend close");                           // remove
    }
}
