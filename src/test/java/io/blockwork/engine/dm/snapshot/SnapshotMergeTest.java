package io.blockwork.engine.dm.snapshot;

import static io.blockwork.engine.dm.snapshot.SnapshotRig.assertHolds;
import static io.blockwork.engine.dm.snapshot.SnapshotRig.randomWrite;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.ManualClock;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.CacheMode;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.engine.disk.MemoryMedium;
import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.targets.SnapshotMergeTarget;
import io.blockwork.engine.dm.targets.Snapshots;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 3: merging a snapshot back returns the origin to the snapshot's content while the
 * merged view is read and written, keeps the writes made during the merge, and ends with no
 * exception left (allocated == metadata).
 */
@Tag("unit")
class SnapshotMergeTest {

    private static final long SIZE = 4L << 20;
    private static final Duration LONG = Duration.ofSeconds(60);

    private static SnapshotStatus status(MappedDevice d) {
        return Snapshots.status(d).orElseThrow();
    }

    @ParameterizedTest
    @EnumSource(SnapshotLocking.Kind.class)
    void mergeReturnsTheOriginToTheSnapshotUnderConcurrentReadsAndWrites(SnapshotLocking.Kind locking) throws Exception {
        SnapshotRig rig = new SnapshotRig(SIZE, locking);
        // A COW disk with a read latency, so the merge's copies take a while and I/O overlaps them.
        rig.devs.disk("cow", SIZE, DiskConfig.writeback().withLatency(new LatencyModel(200_000, 0, 0, 0)));
        byte[] model = new byte[(int) SIZE];
        Random r = new Random(21);
        for (int i = 0; i < 40; i++) {
            randomWrite(rig.volume, model, r);
        }
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.PERSISTENT, 8);
        byte[] expected = model.clone();
        for (int i = 0; i < 150; i++) {
            randomWrite(rig.volume, model, r);
            if (i % 4 == 0) {
                randomWrite(snap, expected, r);
            }
        }
        long exceptions = status(snap).exceptions();
        assertThat(exceptions).isGreaterThan(100);

        Snapshots.merge(rig.volume, snap, rig.devs);
        assertThat(rig.devs.find("s") instanceof MappedDevice m && m.state() == io.blockwork.engine.dm.DeviceInfo.State.REMOVED).isTrue();
        assertThat(rig.volume.tableText()).isEqualTo("0 8192 snapshot-merge base cow P 8\n");

        // Writers on the first half, readers checking the second half, until the merge is done.
        AtomicBoolean merging = new AtomicBoolean(true);
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        List<CompletableFuture<Void>> io = new ArrayList<>();
        long half = SIZE / 2;
        for (int w = 0; w < 2; w++) {
            long base = w * half / 2;
            Random wr = new Random(300 + w);
            io.add(CompletableFuture.runAsync(() -> {
                while (merging.get() || writes.get() < 50) {
                    int len = 512 * (1 + wr.nextInt(32));
                    long off = base + 512L * wr.nextInt((int) ((half / 2 - len) / 512));
                    SnapshotRig.write(rig.volume, expected, off, len, wr);
                    writes.incrementAndGet();
                }
            }));
        }
        for (int t = 0; t < 2; t++) {
            Random rr = new Random(400 + t);
            io.add(CompletableFuture.runAsync(() -> {
                while (merging.get() || reads.get() < 50) {
                    int len = 512 * (1 + rr.nextInt(64));
                    long off = half + 512L * rr.nextInt((int) ((half - len) / 512));
                    byte[] got = new byte[len];
                    SyncIo.read(rig.volume, off, MemorySegment.ofArray(got));
                    if (!Arrays.equals(got, 0, len, expected, (int) off, (int) off + len)) {
                        throw new AssertionError("merged view read at " + off + " differs from the snapshot");
                    }
                    reads.incrementAndGet();
                }
            }));
        }
        await().atMost(LONG).until(() -> status(rig.volume).merge() == SnapshotStatus.MergeState.DONE);
        merging.set(false);
        CompletableFuture.allOf(io.toArray(CompletableFuture[]::new)).get();

        SnapshotStatus done = status(rig.volume);
        assertThat(done.exceptions()).isZero();
        assertThat(done.allocatedIsMetadata()).as(done.text()).isTrue();
        assertThat(done.text()).isEqualTo("16/8192 16");
        assertHolds(rig.volume, expected, "merged volume");
        assertHolds(rig.base, expected, "the origin disk itself");

        Snapshots.finishMerge(rig.volume, rig.devs);
        assertThat(rig.volume.tableText()).isEqualTo("0 8192 snapshot-origin base\n");
        assertHolds(rig.volume, expected, "volume after the merge");
    }

    @Test
    void aMergeStopsForASuspendAndGoesOnAfterResume() throws Exception {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        ManualClock clock = new ManualClock();
        Disk cow = rig.devs.add(new Disk("cow", new MemoryMedium(SIZE, CacheMode.WRITEBACK), DiskConfig.writeback(), clock));
        byte[] model = new byte[(int) SIZE];
        Random r = new Random(9);
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.PERSISTENT, 8);
        byte[] expected = model.clone();
        for (int i = 0; i < 100; i++) {
            SnapshotRig.write(rig.volume, model, 4096L * 2 * i, 4096, r); // 100 runs of one chunk
        }
        // From now on the COW's reads (the merge's copies) wait for the test's clock.
        cow.latency(new LatencyModel(1000, 0, 0, 0));
        Snapshots.merge(rig.volume, snap, rig.devs);
        await().atMost(LONG).until(() -> clock.pending() == 1);
        CompletableFuture<Void> suspend = CompletableFuture.runAsync(rig.volume::suspend);
        // Let copies finish one at a time until the suspend (waiting for the step in flight) returns.
        await().atMost(LONG).until(() -> {
            clock.advance(1000);
            return suspend.isDone();
        });
        suspend.get();
        SnapshotStatus stopped = status(rig.volume);
        assertThat(stopped.merge()).isEqualTo(SnapshotStatus.MergeState.STOPPED);
        assertThat(stopped.exceptions()).isBetween(1L, 99L);
        long left = stopped.exceptions();
        clock.advance(1000);
        assertThat(status(rig.volume).exceptions()).as("nothing merges while suspended").isEqualTo(left);
        cow.latency(LatencyModel.NONE);
        rig.volume.resume();
        await().atMost(LONG).until(() -> status(rig.volume).merge() == SnapshotStatus.MergeState.DONE);
        assertHolds(rig.volume, expected, "merged volume");
    }

    @Test
    void aWriteToTheChunkBeingMergedWaitsForItAndIsKept() throws Exception {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        ManualClock clock = new ManualClock();
        Disk cow = rig.devs.add(new Disk("cow", new MemoryMedium(SIZE, CacheMode.WRITEBACK), DiskConfig.writeback(), clock));
        Random r = new Random(12);
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.PERSISTENT, 8);
        byte[] expected = new byte[(int) SIZE];
        SnapshotRig.write(rig.volume, new byte[(int) SIZE], 5 * 4096L, 4096, r); // one exception: chunk 5
        cow.latency(new LatencyModel(1000, 0, 0, 0));
        Snapshots.merge(rig.volume, snap, rig.devs);
        await().atMost(LONG).until(() -> clock.pending() == 1); // the merge is reading chunk 5 from the COW

        byte[] data = new byte[1024];
        r.nextBytes(data);
        System.arraycopy(data, 0, expected, 5 * 4096 + 512, data.length);
        CompletableFuture<Void> write = CompletableFuture.runAsync(
                () -> SyncIo.write(rig.volume, 5 * 4096L + 512, MemorySegment.ofArray(data)));
        Merge merge = ((SnapshotMergeTarget) rig.volume.liveTable().entries().getFirst().target()).snapshot().merge();
        await().atMost(LONG).until(() -> write.isDone() || merge.queuedWrites() == 1);
        assertThat(write).as("a write to the merging chunk waits for the merge of that chunk").isNotDone();
        cow.latency(LatencyModel.NONE);
        clock.advance(1000);
        write.get();
        await().atMost(LONG).until(() -> status(rig.volume).merge() == SnapshotStatus.MergeState.DONE);
        assertHolds(rig.volume, expected, "merged volume");
        assertHolds(rig.base, expected, "the origin disk");
    }

    @Test
    void aMergeTableLoadedAfterARestartReadsTheCowAndMerges() throws Exception {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        Disk cow = rig.cow("cow", SIZE);
        byte[] model = new byte[(int) SIZE];
        Random r = new Random(10);
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.PERSISTENT, 8);
        byte[] expected = model.clone();
        for (int i = 0; i < 100; i++) {
            randomWrite(rig.volume, model, r);
        }
        snap.remove();
        rig.volume.remove();
        DmTestDevices devs = new DmTestDevices();
        devs.add(rig.base);
        devs.add(cow);
        MappedDevice vol = devs.create("vol", Snapshots.mergeTable("base", "cow", StoreType.PERSISTENT, 8, SIZE >> 9));
        assertHolds(vol, expected, "merged view as soon as it is loaded");
        await().atMost(LONG).until(() -> status(vol).merge() == SnapshotStatus.MergeState.DONE);
        assertHolds(rig.base, expected, "the origin disk after the merge");
    }

    @Test
    void mergesAreRefusedWhereTheKernelRefusesThem() throws Exception {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        rig.cow("c1", SIZE);
        rig.cow("c2", SIZE);
        rig.cow("c3", SIZE);
        MappedDevice transient_ = rig.snapshot("t", "c1", StoreType.TRANSIENT, 8);
        assertThatThrownBy(() -> Snapshots.merge(rig.volume, transient_, rig.devs))
                .isInstanceOf(DmException.class).hasMessageContaining("transient snapshot, which cannot be merged");
        MappedDevice p = rig.snapshot("p", "c2", StoreType.PERSISTENT, 8);
        // A merge table over a live (not suspended) snapshot: the handover is refused at resume.
        assertThatThrownBy(() -> rig.devs.create("m", Snapshots.mergeTable("base", "c2", StoreType.PERSISTENT, 8, SIZE >> 9)))
                .isInstanceOf(TableException.class)
                .hasMessageContaining("Unable to perform snapshot handover until source is suspended");
        // A second merge into the same origin.
        rig.devs.create("m1", Snapshots.mergeTable("base", "c3", StoreType.PERSISTENT, 8, SIZE >> 9));
        assertThatThrownBy(() -> Snapshots.merge(rig.volume, p, rig.devs))
                .isInstanceOf(TableException.class).hasMessageContaining("A snapshot is already merging into origin 'base'");
        assertThat(p.state()).as("a refused merge leaves the snapshot live").isEqualTo(io.blockwork.engine.dm.DeviceInfo.State.ACTIVE);
        assertThat(rig.volume.tableText()).contains("snapshot-origin");
    }
}
