package io.blockwork.engine.md;

import static io.blockwork.engine.md.MdManagementTest.random;
import static io.blockwork.engine.md.MdManagementTest.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The sync daemon: initial resync, check and repair with md's mismatch count, pause/resume, progress. */
@Tag("unit")
class MdSyncDaemonTest {

    private static final long MIB = 1L << 20;
    private static final Duration LONG = Duration.ofSeconds(60);
    /** Slow enough that an action is still running when the test looks at it. */
    private static final SpeedLimits CRAWL = new SpeedLimits(1024, 1024);
    private MdFixture f;

    @AfterEach
    void stop() {
        f.array.stop();
    }

    private void awaitIdleAfter(SyncAction action) {
        await().atMost(LONG).until(() -> f.array.detail().sync().action() == SyncAction.IDLE
                && f.array.detail().lastSyncAction() == action);
    }

    /** Members that disagree everywhere, as fresh disks with old contents would. */
    private static List<Disk> garbage(int n, long bytes) {
        List<Disk> disks = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            Disk d = Disk.memory("g" + i, bytes, DiskConfig.DEFAULT);
            SyncIo.write(d, 0, random(100 + i, (int) bytes));
            disks.add(d);
        }
        return disks;
    }

    @Test
    void initialResyncCopiesTheFirstMirrorAndReadsAboveTheResyncPointUseIt() {
        List<Disk> disks = garbage(2, 4 * MIB);
        MdArray a = MdArray.create(MdArraySpec.of("md-rs", MdLevel.RAID1).withSpeed(CRAWL), disks);
        f = fixtureOf(a, disks);
        // Above the resync point every read comes from mirror 0, never a mix of the two.
        await().atMost(LONG).until(() -> a.detail().sync().action() == SyncAction.RESYNC);
        MemorySegment expected = random(100, (int) (4 * MIB));
        for (long off = 2 * MIB; off < 4 * MIB; off += 64 * 1024) {
            assertThat(read(a, off, 4096).mismatch(expected.asSlice(off, 4096))).as("read at %d", off).isEqualTo(-1L);
        }
        assertThat(a.detail().state()).contains(ArrayState.RESYNCING);
        a.speedLimits(SpeedLimits.UNLIMITED);
        awaitIdleAfter(SyncAction.RESYNC);
        assertThat(read(disks.get(1), 0, 4 * MIB).mismatch(expected)).isEqualTo(-1L);
        assertThat(a.detail().mismatchSectors()).as("resync counts what it fixed").isEqualTo(4 * MIB / 512);
        assertThat(a.detail().state()).doesNotContain(ArrayState.RESYNCING);
    }

    @Test
    void raid10ResyncOnAFarLayoutLeavesEveryCopyEqual() {
        List<Disk> disks = garbage(3, 2 * MIB);
        MdArray a = MdArray.create(MdFixture.raid10("f2").withSpeed(SpeedLimits.UNLIMITED), disks);
        f = fixtureOf(a, disks);
        awaitIdleAfter(SyncAction.RESYNC);
        a.sync("check");
        awaitIdleAfter(SyncAction.CHECK);
        assertThat(a.detail().mismatchSectors()).isZero();
    }

    @Test
    void checkCountsMismatchesAndRepairRewritesThem() {
        f = MdFixture.of(MdFixture.raid10("n2"), 4, 4 * MIB);
        SyncIo.write(f.array, 0, random(1, (int) f.array.sizeBytes()));
        // Chunk 0 (64 KiB) has its copies at offset 0 of disks 0 and 1: spoil three pages of disk 1's.
        for (long page : new long[] {0, 8192, 61440}) {
            SyncIo.write(f.disk(1), page, random(page, 4096));
        }
        f.array.sync("check");
        awaitIdleAfter(SyncAction.CHECK);
        assertThat(f.array.detail().mismatchSectors()).isEqualTo(3 * 8);
        assertThat(read(f.disk(1), 8192, 4096).mismatch(read(f.disk(0), 8192, 4096))).as("check changes nothing").isNotEqualTo(-1L);

        f.array.sync("repair");
        awaitIdleAfter(SyncAction.REPAIR);
        assertThat(f.array.detail().mismatchSectors()).isEqualTo(3 * 8);
        assertThat(read(f.disk(1), 0, 64 * 1024).mismatch(read(f.disk(0), 0, 64 * 1024))).isEqualTo(-1L);

        f.array.sync("check");
        awaitIdleAfter(SyncAction.CHECK);
        assertThat(f.array.detail().mismatchSectors()).isZero();
    }

    @Test
    void aPausedCheckKeepsItsPlaceAndResumes() {
        f = MdFixture.of(MdFixture.spec(MdLevel.RAID1), 2, 16 * MIB);
        f.array.speedLimits(CRAWL);
        f.array.sync("check");
        await().atMost(LONG).until(() -> f.array.detail().sync().doneBytes() > 0);
        f.array.sync("pause");
        await().atMost(LONG).until(() -> f.array.detail().sync().paused());
        SyncStatus paused = f.array.detail().sync();
        assertThat(paused.action()).isEqualTo(SyncAction.CHECK);
        assertThat(paused.doneBytes()).isBetween(1L, paused.totalBytes() - 1);
        assertThat(f.array.detail().state()).contains(ArrayState.CHECKING);
        assertThat(MdStat.render(List.of(f.array))).contains("check =").contains(" paused");

        f.array.speedLimits(SpeedLimits.UNLIMITED);
        f.array.sync("resume");
        awaitIdleAfter(SyncAction.CHECK);
        assertThat(f.array.detail().sync().paused()).isFalse();
    }

    @Test
    void progressShowsSpeedAndEtaAndBusyRequestsAreRefused() {
        f = MdFixture.of(MdFixture.spec(MdLevel.RAID1), 2, 16 * MIB);
        f.array.speedLimits(CRAWL);
        f.array.sync("check");
        await().atMost(LONG).until(() -> f.array.detail().sync().doneBytes() >= 2 * Mirrored.WINDOW);
        SyncStatus s = f.array.detail().sync();
        assertThat(s.totalBytes()).isEqualTo(16 * MIB);
        assertThat(s.percent()).isBetween(0.0, 100.0);
        assertThat(s.speedKiBps()).isPositive();
        assertThat(s.etaSeconds()).isNotNegative();
        assertThat(MdStat.render(List.of(f.array)))
                .containsPattern("\\n      \\[=*>\\.*\\]  check = *\\d+\\.\\d% \\(\\d+/16384\\) finish=\\d+\\.\\dmin speed=\\d+K/sec\\n");

        assertThatThrownBy(() -> f.array.sync("repair")).isInstanceOf(MdStateException.class).hasMessageStartingWith("action: ");
        f.array.sync("idle");
        awaitIdleAfter(SyncAction.CHECK);
        assertThat(f.array.detail().sync().action()).isEqualTo(SyncAction.IDLE);
    }

    @Test
    void aPausedRecoveryResumesFromItsRebuiltMark() {
        f = MdFixture.of(MdFixture.spec(MdLevel.RAID1), 2, 8 * MIB);
        SyncIo.write(f.array, 0, random(5, (int) (8 * MIB)));
        f.array.speedLimits(CRAWL);
        f.array.fail(f.disk(0).name());
        Disk spare = f.spare("spare", 8 * MIB);
        f.array.add(spare);
        await().atMost(LONG).until(() -> f.array.detail().sync().action() == SyncAction.RECOVER
                && f.array.detail().sync().doneBytes() > 0);
        assertThat(f.array.detail().state()).contains(ArrayState.RECOVERING, ArrayState.DEGRADED);
        assertThatThrownBy(() -> f.array.sync("check")).isInstanceOf(MdStateException.class).hasMessageStartingWith("action: ");
        f.array.sync("pause");
        await().atMost(LONG).until(() -> f.array.detail().sync().paused());
        long rebuilt = f.array.detail().members().stream().filter(m -> "spare".equals(m.device())).findFirst().orElseThrow().rebuiltBytes();
        assertThat(rebuilt).isPositive().isEqualTo(f.array.detail().sync().doneBytes());
        assertThat(f.array.detail().sync().target()).isEqualTo("spare");

        f.array.speedLimits(SpeedLimits.UNLIMITED);
        f.array.sync("resume");
        awaitIdleAfter(SyncAction.RECOVER);
        await().atMost(LONG).until(() -> !f.array.detail().state().contains(ArrayState.DEGRADED));
        assertThat(read(spare, 0, 8 * MIB).mismatch(random(5, (int) (8 * MIB)))).isEqualTo(-1L);
    }

    private static MdFixture fixtureOf(MdArray a, List<Disk> disks) {
        return MdFixture.wrap(a, disks);
    }
}
