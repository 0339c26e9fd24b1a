package io.blockwork.engine.md;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.Plug;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.contract.ContractChecks;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.disk.LatencyModel;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The stripe cache's choices (rmw, rcw, full stripes, batching), its size, scrubbing and failure handling. */
@Tag("unit")
class ParityStripeTest {

    private static final long MIB = 1L << 20;
    private static final int CHUNK = 64 * 1024;

    private static List<Disk> disks(int n, DiskConfig config) {
        List<Disk> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Disk.memory("st" + i, 4 * MIB, config));
        }
        return out;
    }

    private static MdArray raid(MdLevel level, List<Disk> disks) {
        return MdArray.create(MdArraySpec.parse("st", level.label(), (long) CHUNK, null, null, null)
                .withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED), disks);
    }

    private static long reads(List<Disk> disks) {
        return disks.stream().mapToLong(d -> d.counters().reads()).sum();
    }

    @Test
    void aSmallWriteOnFiveMembersIsReadModifyWriteAndOnFourReconstructWrite() {
        List<Disk> five = disks(5, DiskConfig.DEFAULT);
        MdArray wide = raid(MdLevel.RAID5, five);
        long before = reads(five);
        SyncIo.write(wide, 0, ContractChecks.random(1, 4096));
        // rmw reads old data and old parity (2 blocks); rcw would read the 3 other data blocks.
        assertThat(wide.parityStatus().rmwStripes()).isEqualTo(1);
        assertThat(reads(five) - before).isEqualTo(2);
        wide.stop();

        List<Disk> four = disks(4, DiskConfig.DEFAULT);
        MdArray narrow = raid(MdLevel.RAID5, four);
        SyncIo.write(narrow, 0, ContractChecks.random(1, 4096));
        // 2 reads either way: md takes rcw on a tie.
        assertThat(narrow.parityStatus().rcwStripes()).isEqualTo(1);
        assertThat(narrow.parityStatus().rmwStripes()).isZero();
        narrow.stop();
    }

    @Test
    void aFullStripeWriteReadsNothingAndItsParityChecksWhicheverThreadComputesIt() {
        for (MdLevel level : new MdLevel[] {MdLevel.RAID5, MdLevel.RAID6}) {
            for (ParityThreads threads : ParityThreads.values()) {
                String as = level.label() + ", parity on " + threads;
                List<Disk> disks = disks(5, DiskConfig.DEFAULT);
                MdArray a = raid(level, disks);
                a.parityThreads(threads);
                int row = CHUNK * (level == MdLevel.RAID6 ? 3 : 4);
                long before = reads(disks);
                SyncIo.write(a, row, ContractChecks.random(2, row));
                SyncIo.write(a, 3L * row, ContractChecks.random(3, row), BioFlags.FUA);
                assertThat(reads(disks) - before).as(as).isZero();
                assertThat(a.parityStatus().fullStripeWrites()).as(as).isEqualTo(2);
                assertThat(a.parityStatus().rmwStripes() + a.parityStatus().rcwStripes()).as(as).isZero();
                ContractChecks.assertSame(ContractChecks.read(a, row, row), ContractChecks.random(2, row), as);
                ContractChecks.assertSame(ContractChecks.read(a, 3L * row, row), ContractChecks.random(3, row), as);
                assertThat(scrub(a, SyncAction.CHECK)).as(as + ": parity matches the data").isZero();
                a.stop();
            }
        }
    }

    @Test
    void writesArrivingWhileAStripeIsBusyGoOutInOneParityUpdate() throws Exception {
        List<Disk> slow = disks(4, DiskConfig.DEFAULT.withLatency(new LatencyModel(2_000_000, 2_000_000, 0, 0)));
        MdArray a = raid(MdLevel.RAID5, slow);
        int writes = 8;
        CountDownLatch done = new CountDownLatch(writes);
        List<Bio> bios = new ArrayList<>();
        for (int i = 0; i < writes; i++) {
            bios.add(Bio.write(i * 512L, ContractChecks.random(10 + i, 512), BioFlags.NONE, b -> done.countDown()));
        }
        bios.forEach(a::submit);
        done.await();
        assertThat(bios).allMatch(b -> b.status() == IoStatus.OK);
        assertThat(a.parityStatus().batchedWrites()).isGreaterThan(0);
        for (int i = 0; i < writes; i++) {
            ContractChecks.assertSame(ContractChecks.read(a, i * 512L, 512), ContractChecks.random(10 + i, 512), "write " + i);
        }
        a.stop();
    }

    @Test
    void adjacentWritesHeldInAPlugBecomeAFullStripe() {
        List<Disk> disks = disks(4, DiskConfig.DEFAULT);
        MdArray a = raid(MdLevel.RAID5, disks);
        long before = reads(disks);
        List<SyncIo.Waiter> waits = new ArrayList<>();
        try (Plug plug = Plug.start()) {
            // 12 writes of 16 KiB, fewer than a plug holds before it dispatches on its own.
            for (int i = 0; i < 3 * CHUNK / 16384; i++) {
                SyncIo.Waiter w = new SyncIo.Waiter();
                waits.add(w);
                a.submit(Bio.write(i * 16384L, ContractChecks.random(100 + i, 16384), BioFlags.NONE, w));
            }
        }
        waits.forEach(SyncIo.Waiter::await);
        assertThat(reads(disks) - before).isZero();
        assertThat(a.parityStatus().fullStripeWrites()).isGreaterThan(0);
        a.stop();
    }

    @Test
    void theStripeCacheSizeIsConfigurableAndChecked() {
        List<Disk> disks = disks(4, DiskConfig.DEFAULT);
        MdArray a = MdArray.create(MdArraySpec.of("sc", MdLevel.RAID5).withStripeCacheSize(16).withAssumeClean(true), disks);
        assertThat(a.parityStatus().stripeCacheSize()).isEqualTo(16);
        // More stripes than the cache holds, concurrently: requests wait for a head, none is lost.
        ContractChecks.readAfterWrite(io.blockwork.engine.contract.DeviceUnderTest.of(a));
        a.stripeCacheSize(1024);
        assertThat(a.parityStatus().stripeCacheSize()).isEqualTo(1024);
        assertThatThrownBy(() -> a.stripeCacheSize(8)).isInstanceOf(MdArgumentException.class)
                .hasMessageContaining("16..32768");
        assertThatThrownBy(() -> MdArraySpec.of("r1", MdLevel.RAID1).withStripeCacheSize(64))
                .isInstanceOf(MdArgumentException.class).hasMessageContaining("no stripe cache");
        a.stop();
    }

    @Test
    void checkCountsMismatchesAndRepairFixesThem() {
        List<Disk> disks = disks(4, DiskConfig.DEFAULT);
        MdArray a = raid(MdLevel.RAID5, disks);
        SyncIo.write(a, 0, ContractChecks.random(5, 3 * CHUNK));
        // Row 0's parity is on member 3 (left-symmetric): spoil two of its 4 KiB blocks.
        SyncIo.write(disks.get(3), 8192, ContractChecks.random(6, 4096));
        SyncIo.write(disks.get(3), 3 * 4096 + 8192, ContractChecks.random(7, 4096));
        assertThat(scrub(a, SyncAction.CHECK)).isEqualTo(16);
        assertThat(scrub(a, SyncAction.REPAIR)).as("repair counts what it rewrites").isEqualTo(16);
        assertThat(scrub(a, SyncAction.CHECK)).isZero();
        a.stop();
    }

    /** Runs a check or repair to its end; returns md's mismatch_cnt. */
    private static long scrub(MdArray a, SyncAction action) {
        a.sync(action.label());
        await().atMost(Duration.ofSeconds(30)).until(() -> a.detail().sync().action() == SyncAction.IDLE
                && a.detail().lastSyncAction() == action);
        return a.detail().mismatchSectors();
    }

    @Test
    void aFurtherFailureStopsTheArrayAndNothingWrongIsReturned() {
        List<Disk> disks = disks(4, DiskConfig.DEFAULT);
        MdArray a = raid(MdLevel.RAID5, disks);
        SyncIo.write(a, 0, ContractChecks.random(8, 3 * CHUNK));
        a.fail(disks.get(0).name());
        assertThatThrownBy(() -> a.fail(disks.get(1).name())).isInstanceOf(MdStateException.class);
        disks.get(1).faults(DiskFaults.ALL);
        MemorySegment buf = MemorySegment.ofArray(new byte[3 * CHUNK]);
        assertThat(SyncIo.execute(a, BioOp.READ, 0, 3 * CHUNK, BioFlags.NONE, buf)).isEqualTo(IoStatus.IO_ERROR);
        assertThat(a.inactiveReason()).contains("data lost");
        assertThat(SyncIo.execute(a, BioOp.WRITE, 0, 4096, BioFlags.NONE, ContractChecks.random(9, 4096)))
                .isEqualTo(IoStatus.IO_ERROR);
        a.stop();
    }

    @Test
    void aDegradedArrayWhoseResyncHasNotReachedAStripeRefusesToRebuildIt() {
        List<Disk> disks = disks(4, DiskConfig.DEFAULT);
        // The initial resync crawls (at 1 KiB/s it waits a minute after its first window, one row),
        // so however loaded the machine, it is paused before it reaches row 1.
        MdArray a = MdArray.create(MdArraySpec.parse("st", "raid5", (long) CHUNK, null, null, null)
                .withSpeed(new SpeedLimits(1, 1)), disks);
        a.sync("pause");
        a.fail(disks.get(0).name());
        MemorySegment buf = MemorySegment.ofArray(new byte[4096]);
        // Left-symmetric on 4 members: row 1 (array chunks 3-5) has its parity on member 2 and a
        // data chunk on member 0, which cannot be rebuilt from parity never computed.
        boolean refused = false;
        for (long c = 0; c < 6; c++) {
            refused |= SyncIo.execute(a, BioOp.READ, c * CHUNK, 4096, BioFlags.NONE, buf) == IoStatus.IO_ERROR;
        }
        assertThat(refused).as("a read needing never-computed parity fails instead of returning garbage").isTrue();
        assertThat(a.inactiveReason()).isNull();
        a.stop();
    }

    @Test
    void aReplacementIsRebuiltBesideItsMemberAndTakesOver() {
        List<Disk> disks = disks(4, DiskConfig.DEFAULT);
        MdArray a = raid(MdLevel.RAID6, disks);
        SyncIo.write(a, 0, ContractChecks.random(11, 2 * CHUNK));
        Disk with = Disk.memory("st-new", 4 * MIB, DiskConfig.DEFAULT);
        a.replace(disks.get(2).name(), with);
        await().atMost(Duration.ofSeconds(30)).until(() -> a.detail().members().stream()
                .anyMatch(m -> m.device() != null && m.device().equals("st-new") && m.state() == MemberState.IN_SYNC));
        a.fail(disks.get(0).name());
        a.fail(disks.get(1).name());
        ContractChecks.assertSame(ContractChecks.read(a, 0, 2 * CHUNK), ContractChecks.random(11, 2 * CHUNK), "after replace");
        a.stop();
    }
}
