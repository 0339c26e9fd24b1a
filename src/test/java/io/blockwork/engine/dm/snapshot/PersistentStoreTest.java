package io.blockwork.engine.dm.snapshot;

import static io.blockwork.engine.dm.snapshot.SnapshotRig.assertHolds;
import static io.blockwork.engine.dm.snapshot.SnapshotRig.image;
import static io.blockwork.engine.dm.snapshot.SnapshotRig.randomWrite;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.ManualClock;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.CacheMode;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.engine.disk.MemoryMedium;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.targets.Snapshots;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 2: the persistent store's on-disk layout, recovery at table load (after a reload and
 * after a power cut of the COW disk), batching of metadata writes, and refusal of foreign headers.
 */
@Tag("unit")
class PersistentStoreTest {

    private static final long SIZE = 4L << 20;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static MemorySegment raw(Disk d, long offset, int bytes) {
        MemorySegment m = MemorySegment.ofArray(new byte[bytes]);
        SyncIo.read(d, offset, m);
        return m;
    }

    /** A fresh engine (new origin registry) over the same disks: what a service restart does. */
    private static DmTestDevices restart(Disk... disks) {
        DmTestDevices devs = new DmTestDevices();
        for (Disk d : disks) {
            devs.add(d);
        }
        return devs;
    }

    @Test
    void theCowDeviceHoldsTheKernelLayout() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        Disk cow = rig.cow("cow", SIZE);
        // 512-byte chunks: 32 entries per metadata area, so 40 exceptions fill area 0 and start area 1.
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.PERSISTENT, 1);
        for (int i = 0; i < 40; i++) {
            SyncIo.write(rig.volume, 4096L * i, MemorySegment.ofArray(new byte[512]));
        }
        MemorySegment header = raw(cow, 0, 512);
        assertThat(header.get(U32, 0)).as("magic").isEqualTo(0x70416e53);
        assertThat(header.get(U32, 4)).as("valid").isEqualTo(1);
        assertThat(header.get(U32, 8)).as("version").isEqualTo(1);
        assertThat(header.get(U32, 12)).as("chunk size").isEqualTo(1);
        int perArea = 512 / 16;
        MemorySegment area0 = raw(cow, 512, 512);
        for (int i = 0; i < perArea; i++) {
            assertThat(area0.get(U64, 16L * i)).as("old chunk of entry %d", i).isEqualTo(8L * i);
            // data chunks follow the area: chunk 2, 3, ...
            assertThat(area0.get(U64, 16L * i + 8)).as("new chunk of entry %d", i).isEqualTo(2L + i);
        }
        MemorySegment area1 = raw(cow, 512L * (1 + (perArea + 1)), 512);
        for (int i = 0; i < 8; i++) {
            assertThat(area1.get(U64, 16L * i)).isEqualTo(8L * (perArea + i));
            // area 1 sits at chunk 34; its data chunks start at 35
            assertThat(area1.get(U64, 16L * i + 8)).isEqualTo(35L + i);
        }
        assertThat(area1.get(U64, 16L * 8 + 8)).as("the list ends with new_chunk 0").isZero();
        // allocated: header, 2 areas, 40 data chunks; metadata: header + 2 areas
        assertThat(snap.statusText()).isEqualTo("0 8192 snapshot 43/8192 3\n");
        assertThat(snap.tableText()).isEqualTo("0 8192 snapshot base cow P 1\n");
    }

    @Test
    void aReloadedTableRecoversEveryCommittedException() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        Disk cow = rig.cow("cow", SIZE);
        byte[] model = new byte[(int) SIZE];
        Random r = new Random(3);
        for (int i = 0; i < 30; i++) {
            randomWrite(rig.volume, model, r);
        }
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.PERSISTENT, 2);
        byte[] at = model.clone();
        for (int i = 0; i < 300; i++) {
            randomWrite(rig.volume, model, r);
            if (i % 3 == 0) {
                randomWrite(snap, at, r);
            }
        }
        String status = snap.statusText();
        long exceptions = Snapshots.status(snap).orElseThrow().exceptions();
        assertThat(exceptions).isGreaterThan(ExceptionTable.MAX_RUN);

        // The same engine: the snapshot device goes away and comes back; the table reads the COW again.
        snap.remove();
        MappedDevice again = rig.snapshot("s2", "cow", StoreType.PERSISTENT, 2);
        assertThat(again.statusText()).isEqualTo(status);
        assertHolds(again, at, "snapshot reloaded in the same engine");

        // A new engine over the same disks, as after a restart of the service.
        again.remove();
        rig.volume.remove();
        DmTestDevices devs = restart(rig.base, cow);
        MappedDevice vol = devs.create("vol", Snapshots.originTable("base", SIZE >> 9));
        MappedDevice back = devs.create("s", Snapshots.snapshotTable("base", "cow", StoreType.PERSISTENT, 0, SIZE >> 9));
        assertThat(back.tableText()).as("chunk size 0 takes the header's").contains("cow P 2");
        assertThat(back.statusText()).isEqualTo(status);
        assertThat(Snapshots.status(back).orElseThrow().exceptions()).isEqualTo(exceptions);
        assertHolds(back, at, "snapshot after a restart");
        assertHolds(vol, model, "origin after a restart");
    }

    @Test
    void aReloadOfALiveSnapshotHandsItsExceptionsOver() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        rig.cow("cow", SIZE);
        byte[] model = new byte[(int) SIZE];
        Random r = new Random(5);
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.PERSISTENT, 8);
        byte[] at = model.clone();
        for (int i = 0; i < 100; i++) {
            randomWrite(rig.volume, model, r);
        }
        Disk cow = (Disk) rig.devs.find("cow");
        long readsBefore = cow.counters().reads();
        snap.load(Snapshots.snapshotTable("base", "cow", StoreType.PERSISTENT_OVERFLOW, 8, SIZE >> 9), rig.devs);
        snap.resume();
        assertThat(cow.counters().reads()).as("a handover does not read the COW").isEqualTo(readsBefore);
        assertThat(snap.tableText()).contains("cow PO 8");
        for (int i = 0; i < 100; i++) {
            randomWrite(rig.volume, model, r);
        }
        assertHolds(snap, at, "snapshot after its table was reloaded");
    }

    @Test
    void aPowerCutOfTheCowDiskLosesNoCommittedExceptionNorAnyFlushedWrite() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        Disk cow = rig.cow("cow", SIZE); // writeback: only flush and FUA make writes durable
        byte[] model = new byte[(int) SIZE];
        Random r = new Random(11);
        for (int i = 0; i < 40; i++) {
            randomWrite(rig.volume, model, r);
        }
        SyncIo.flush(rig.volume);
        MappedDevice snap = rig.snapshot("s", "cow", StoreType.PERSISTENT, 8);
        byte[] at = model.clone();
        for (int i = 0; i < 50; i++) {
            randomWrite(snap, at, r);
        }
        SyncIo.flush(snap); // snapshot writes are durable from here
        for (int i = 0; i < 200; i++) {
            // Each acknowledged origin write had its exceptions committed first; nothing flushes the COW after these.
            randomWrite(rig.volume, model, r);
        }
        String status = snap.statusText();

        cow.powerCut();
        snap.remove();
        rig.volume.remove();
        DmTestDevices devs = restart(rig.base, cow);
        MappedDevice vol = devs.create("vol", Snapshots.originTable("base", SIZE >> 9));
        MappedDevice back = devs.create("s", Snapshots.snapshotTable("base", "cow", StoreType.PERSISTENT, 8, SIZE >> 9));
        assertThat(back.statusText()).isEqualTo(status);
        assertHolds(back, at, "snapshot after a power cut of its COW disk");
        assertHolds(vol, model, "origin");
    }

    @Test
    void concurrentCommitsShareOneMetadataWrite() throws Exception {
        ManualClock clock = new ManualClock();
        DmTestDevices devs = new DmTestDevices();
        // The origin's reads (the copies' first half) wait for the clock, so all copies are pending at once.
        devs.add(new Disk("base", new MemoryMedium(SIZE, CacheMode.WRITEBACK),
                DiskConfig.writeback().withLatency(new LatencyModel(1000, 0, 0, 0)), clock));
        Disk cow = devs.disk("cow", SIZE);
        MappedDevice vol = devs.create("vol", Snapshots.originTable("base", SIZE >> 9));
        devs.add(Snapshots.create(vol, "s", cow, StoreType.PERSISTENT, 8, devs, devs.config()));
        long flushesBefore = cow.counters().flushes();
        int n = 64;
        CountDownLatch done = new CountDownLatch(n);
        AtomicInteger failed = new AtomicInteger();
        for (int i = 0; i < n; i++) {
            vol.submit(Bio.write(4096L * 3 * i, MemorySegment.ofArray(new byte[4096]), BioFlags.NONE, b -> {
                if (!b.status().ok()) {
                    failed.incrementAndGet();
                }
                done.countDown();
            }));
        }
        // Every copy has read as far as the origin disk, and waits there; no origin write is done.
        await().atMost(Duration.ofSeconds(30)).until(() -> clock.pending() == n);
        assertThat(done.getCount()).as("origin writes wait for their copies").isEqualTo(n);
        clock.advance(1000);
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(failed).hasValue(0);
        assertThat(cow.counters().flushes() - flushesBefore).as("metadata writes (PREFLUSH|FUA) for 64 commits").isEqualTo(1);
        assertThat(Snapshots.status((MappedDevice) devs.find("s")).orElseThrow().exceptions()).isEqualTo(n);
    }

    /**
     * The store keeps its current area encoded and adds only new entries to it (issue 20): a merge
     * that forgets the newest exceptions, then new commits in their place, must still leave on
     * disk exactly the live entries, in order, as a reopened store reads them back.
     */
    @Test
    void commitsAfterAMergedRunLeaveExactlyTheLiveEntriesOnDisk() throws Exception {
        DmTestDevices devs = new DmTestDevices();
        Disk cow = devs.disk("cow", SIZE);
        Disk origin = devs.disk("base", SIZE);
        // 512-byte chunks: 32 entries per area; 40 commits fill area 0 and start area 1.
        PersistentStore store = PersistentStore.open(cow, StoreType.PERSISTENT, 1, origin, (o, n) -> { });
        List<long[]> live = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            live.add(new long[] {100L + i, commit(store, 100L + i)});
        }
        ExceptionStore.MergeRun run = store.prepareMerge();
        assertThat(run.count()).as("the 8 entries of area 1 are one consecutive run").isEqualTo(8);
        CountDownLatch merged = new CountDownLatch(1);
        store.commitMerge(5, st -> merged.countDown());
        assertThat(merged.await(30, TimeUnit.SECONDS)).isTrue();
        live.subList(35, 40).clear();
        for (int i = 0; i < 3; i++) {
            live.add(new long[] {500L + i, commit(store, 500L + i)});
        }
        List<long[]> read = new ArrayList<>();
        PersistentStore.open(cow, StoreType.PERSISTENT, 0, origin, (o, n) -> read.add(new long[] {o, n}));
        assertThat(read).usingElementComparator((a, b) -> Arrays.compare(a, b)).containsExactlyElementsOf(live);
    }

    /** Prepares and commits one exception for {@code oldChunk}; its COW chunk once the commit is durable. */
    private static long commit(PersistentStore store, long oldChunk) throws InterruptedException {
        long n = store.prepareException();
        CountDownLatch done = new CountDownLatch(1);
        store.commitException(oldChunk, n, true, ok -> done.countDown());
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        return n;
    }

    @Test
    void aForeignHeaderIsRefusedWithAClearError() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        Disk cow = rig.cow("cow", SIZE);
        MemorySegment junk = MemorySegment.ofArray(new byte[512]);
        junk.set(U32, 0, 0x12345678);
        SyncIo.write(cow, 0, junk);
        assertThatThrownBy(() -> rig.snapshot("s", "cow", StoreType.PERSISTENT, 8))
                .hasRootCauseInstanceOf(TableException.class)
                .rootCause().hasMessageContaining("line 1: snapshot: Invalid or corrupt snapshot: COW device 'cow' has magic 0x12345678");
        assertThat(rig.devs.find("s")).isNull();
    }

    @Test
    void anUnknownVersionIsRefusedWithAClearError() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        Disk cow = rig.cow("cow", SIZE);
        MemorySegment header = MemorySegment.ofArray(new byte[512]);
        header.set(U32, 0, 0x70416e53);
        header.set(U32, 4, 1);
        header.set(U32, 8, 2);
        header.set(U32, 12, 8);
        SyncIo.write(cow, 0, header);
        assertThatThrownBy(() -> rig.snapshot("s", "cow", StoreType.PERSISTENT, 8))
                .rootCause().hasMessageContaining("unable to handle snapshot disk version 2 on COW device 'cow'");
    }

    @Test
    void aHeaderMarkedInvalidLoadsAnInvalidSnapshot() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        Disk cow = rig.cow("cow", SIZE);
        MemorySegment header = MemorySegment.ofArray(new byte[512]);
        header.set(U32, 0, 0x70416e53);
        header.set(U32, 4, 0);
        header.set(U32, 8, 1);
        header.set(U32, 12, 8);
        SyncIo.write(cow, 0, header);
        MappedDevice s = rig.snapshot("s", "cow", StoreType.PERSISTENT, 8);
        assertThat(s.statusText()).isEqualTo("0 8192 snapshot Invalid\n");
        assertThat(SyncIo.execute(s, BioOp.READ, 0, 4096, BioFlags.NONE, MemorySegment.ofArray(new byte[4096])))
                .isEqualTo(IoStatus.IO_ERROR);
    }

    @Test
    void theHeadersChunkSizeWinsOverTheTables() {
        SnapshotRig rig = new SnapshotRig(SIZE, SnapshotLocking.Kind.FINE);
        rig.cow("cow", SIZE);
        rig.snapshot("s", "cow", StoreType.PERSISTENT, 8).remove();
        MappedDevice again = rig.snapshot("s2", "cow", StoreType.PERSISTENT, 16);
        assertThat(again.tableText()).isEqualTo("0 8192 snapshot base cow P 8\n");
        assertThat(image(again)).hasSize((int) SIZE);
    }
}
