package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;
import static io.blockwork.engine.md.SurvivingMembers.pattern;
import static io.blockwork.engine.md.SurvivingMembers.read;
import static io.blockwork.engine.md.SurvivingMembers.write;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.md.metadata.Examination;
import io.blockwork.engine.md.metadata.MetadataSpec;
import io.blockwork.engine.md.metadata.Superblock;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * raid4/5/6 with v1.2 superblocks and the write-intent bitmap, across crashes on memory disks that
 * outlive the array ({@link MdArray#kill} is the crash): the superblocks carry md's level, layout
 * and chunk; the bitmap covers member bytes, so after an unclean shutdown only the rows of dirty
 * chunks have their parity recomputed (the write hole closed through the bitmap), a degraded array
 * rebuilds every stripe outside them, and a re-added member gets only what it missed.
 */
@Tag("unit")
class MdParityBitmapTest {

    private static final long MIB = 1L << 20;
    private static final int CHUNK = 64 * 1024;
    private static final Duration LONG = Duration.ofSeconds(60);

    private final SurvivingMembers members = new SurvivingMembers();
    private final Map<String, BlockDevice> devices = members.devices;

    @AfterEach
    void stop() {
        members.close();
    }

    private MdArray parity(String name, MdLevel level, boolean bitmap, String... names) {
        for (String m : names) {
            members.disk(m, 16 * MIB);
        }
        return members.create(MdArraySpec.of(name, level).withChunk(CHUNK).withSpeed(SpeedLimits.UNLIMITED).withAssumeClean(true)
                .withMetadata(MetadataSpec.v12(bitmap ? new MetadataSpec.Bitmap(CHUNK, 1) : null)), List.of(names));
    }

    private static ParityGeometry geo(MdArray a) {
        return ((Raid5) a.personality()).geo;
    }

    private MdAssembly.Result crashAndAssemble(MdArray a, String... present) {
        return members.crashAndAssemble(a, present);
    }

    private static void settled(MdArray a) {
        await().atMost(LONG).until(() -> a.detail().sync().action() == SyncAction.IDLE && !a.resyncPending()
                && a.detail().members().stream().allMatch(m -> m.state() == MemberState.IN_SYNC));
    }

    /** A page of {@code row}'s parity on its member, overwritten: a stripe whose parity write never happened. */
    private void tearParity(MdArray a, long row, int page) {
        String member = a.detail().members().get(geo(a).parityDisk(row)).device();
        write(devices.get(member), a.dataOffset() + row * CHUNK + (long) page * 4096, pattern((int) row, 4096));
    }

    @Test
    void theSuperblocksCarryTheParityLevelLayoutAndChunk() {
        MdArray a = parity("p6sb", MdLevel.RAID6, true, "s0", "s1", "s2", "s3", "s4");
        Superblock sb = Examination.of(devices.get("s3")).sb();
        assertThat(sb.level()).isEqualTo(6);
        assertThat(sb.layout()).isEqualTo(ParityLayout.LEFT_SYMMETRIC.code());
        assertThat(sb.chunkSectors()).isEqualTo(CHUNK / 512);
        assertThat(sb.raidDisks()).isEqualTo(5);
        assertThat(sb.size() << 9).isEqualTo(a.detail().usedDevSizeBytes());
        assertThat(a.detail().metadata().bitmap().chunks()).as("one bit per 64 KiB of each member")
                .isEqualTo((int) (a.detail().usedDevSizeBytes() / CHUNK));
    }

    /** The raid5 write hole through the bitmap: only the rows of dirty chunks are resynced after a crash. */
    @Test
    void anUncleanShutdownRecomputesParityOnlyInTheRowsOfDirtyChunks() {
        MdArray a = parity("p5dirty", MdLevel.RAID5, true, "d0", "d1", "d2", "d3");
        long rowBytes = geo(a).rowBytes();
        byte[] data = pattern(1, 4096);
        write(a, 5 * rowBytes, data);
        // torn parity in the row being written at the crash, and a stray difference in a row nobody wrote
        tearParity(a, 5, 1);
        tearParity(a, 40, 0);

        assertThat(Examination.of(devices.get("d3")).dirtyBits()).as("the row's member chunk, durable before the write")
                .isEqualTo(1);

        MdArray again = crashAndAssemble(a, "d0", "d1", "d2", "d3").array();
        settled(again);
        assertThat(again.detail().lastSyncAction()).isEqualTo(SyncAction.RESYNC);
        assertThat(again.detail().mismatchSectors()).as("the dirty row's torn parity page").isEqualTo(8);
        assertThat(again.detail().metadata().bitmap().neededChunks()).isZero();
        assertThat(read(again, 5 * rowBytes, data.length)).isEqualTo(data);

        again.sync("check");
        await().atMost(LONG).until(() -> again.detail().lastSyncAction() == SyncAction.CHECK
                && again.detail().sync().action() == SyncAction.IDLE);
        assertThat(again.detail().mismatchSectors()).as("the clean row was not resynced").isEqualTo(8);
    }

    /** Without a bitmap the whole array is resynced after a crash (md without a bitmap). */
    @Test
    void withoutABitmapAnUncleanShutdownResyncsEveryRow() {
        MdArray a = parity("p5full", MdLevel.RAID5, false, "e0", "e1", "e2", "e3");
        long rowBytes = geo(a).rowBytes();
        write(a, 5 * rowBytes, pattern(2, 4096));
        tearParity(a, 40, 0);

        MdArray again = crashAndAssemble(a, "e0", "e1", "e2", "e3").array();
        settled(again);
        assertThat(again.detail().lastSyncAction()).isEqualTo(SyncAction.RESYNC);
        assertThat(again.detail().mismatchSectors()).as("row 40 was resynced too").isEqualTo(8);
    }

    /**
     * Degraded after a crash, a parity array cannot resync; with the bitmap it still rebuilds a
     * missing member's data in every row outside the dirty chunks, and refuses only the rows whose
     * parity may be torn (md would rebuild garbage there).
     */
    @Test
    void degradedAfterACrashOnlyTheDirtyRowsAreRefused() {
        MdArray a = parity("p5deg", MdLevel.RAID5, true, "g0", "g1", "g2", "g3");
        ParityGeometry geo = geo(a);
        long rowBytes = geo.rowBytes();
        byte[] before = pattern(3, (int) (10 * rowBytes));
        write(a, 0, before);
        await().atMost(LONG).until(() -> a.detail().metadata().bitmap().dirtyChunks() == 0);
        write(a, 5 * rowBytes, pattern(4, 4096));

        int lost = geo.dataDisk(5, 0);
        long clean = -1;
        int k = -1;
        for (long r = 0; r < 10 && clean < 0; r++) {
            for (int i = 0; i < geo.dataDisks(); i++) {
                if (r != 5 && geo.dataDisk(r, i) == lost) {
                    clean = r;
                    k = i;
                }
            }
        }
        List<String> present = new ArrayList<>(List.of("g0", "g1", "g2", "g3"));
        present.remove(a.detail().members().get(lost).device());
        MdArray again = crashAndAssemble(a, present.toArray(String[]::new)).array();
        assertThat(again.detail().state()).contains(ArrayState.DEGRADED);

        long at = clean * rowBytes + (long) k * CHUNK;
        assertThat(read(again, at, 4096)).as("rebuilt from the others in a clean row")
                .isEqualTo(java.util.Arrays.copyOfRange(before, (int) at, (int) at + 4096));
        assertThat(SyncIo.execute(again, BioOp.READ, 5 * rowBytes, 4096, BioFlags.NONE,
                MemorySegment.ofArray(new byte[4096])).ok()).as("the dirty row's parity may be torn").isFalse();
    }

    /** mdadm --re-add on raid5 with a bitmap: only the member chunks written while it was out are rebuilt. */
    @Test
    void aReAddRebuildsOnlyWhatWasWrittenWhileTheMemberWasOut() {
        MdArray a = parity("p5readd", MdLevel.RAID5, true, "r0", "r1", "r2", "r3");
        long rowBytes = geo(a).rowBytes();
        write(a, 0, pattern(5, (int) (8 * rowBytes)));
        a.fail("r2");
        a.remove("r2");
        byte[] missed = pattern(6, (int) rowBytes);
        write(a, 20 * rowBytes, missed);
        assertThat(a.reAdd(devices.get("r2"))).isEqualTo("bitmap");
        settled(a);
        assertThat(a.detail().recoveredBytes()).as("one row: one 64 KiB chunk of the member").isEqualTo(CHUNK);
        assertThat(read(a, 20 * rowBytes, missed.length)).isEqualTo(missed);
        a.sync("check");
        await().atMost(LONG).until(() -> a.detail().lastSyncAction() == SyncAction.CHECK
                && a.detail().sync().action() == SyncAction.IDLE);
        assertThat(a.detail().mismatchSectors()).as("parity agrees everywhere").isZero();
    }
}
