package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;
import static io.blockwork.engine.md.SurvivingMembers.pattern;
import static io.blockwork.engine.md.SurvivingMembers.read;
import static io.blockwork.engine.md.SurvivingMembers.write;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.HoldingDevice;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.md.metadata.Examination;
import io.blockwork.engine.md.metadata.MetadataSpec;
import io.blockwork.engine.md.metadata.Superblock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/**
 * Superblocks and the bitmap across crashes, on memory disks that outlive the array: a crash is
 * {@link MdArray#kill} (nothing more written, as a process kill leaves the members), and the array
 * is assembled again from the same disks by their superblocks alone.
 */
@Tag("unit")
class MdSuperblockTest {

    private static final long MIB = 1L << 20;
    private static final int CHUNK = 64 * 1024;
    private static final Duration LONG = Duration.ofSeconds(60);

    private final SurvivingMembers members = new SurvivingMembers();
    private final Map<String, BlockDevice> devices = members.devices;
    private final MdArrays arrays = members.arrays;

    @AfterEach
    void stop() {
        members.close();
    }

    private Disk disk(String name, long bytes) {
        return members.disk(name, bytes);
    }

    private MdArray raid1(String name, long diskBytes, String... names) {
        return raid1(name, diskBytes, 1, names);
    }

    /** With the bitmap daemon waking every {@code daemonSleepSeconds} (clearing idle chunks' bits). */
    private MdArray raid1(String name, long diskBytes, int daemonSleepSeconds, String... names) {
        for (String m : names) {
            disk(m, diskBytes);
        }
        MdArraySpec spec = MdArraySpec.of(name, MdLevel.RAID1).withSpeed(SpeedLimits.UNLIMITED).withAssumeClean(true)
                .withMetadata(MetadataSpec.v12(new MetadataSpec.Bitmap(CHUNK, daemonSleepSeconds)));
        return members.create(spec, List.of(names));
    }

    private MdAssembly.Result crashAndAssemble(MdArray a, String... names) {
        return members.crashAndAssemble(a, names);
    }

    private static void settled(MdArray a) {
        await().atMost(LONG).until(() -> a.detail().sync().action() == SyncAction.IDLE && !a.resyncPending()
                && a.detail().members().stream().allMatch(m -> m.state() == MemberState.IN_SYNC || m.device() == null
                        || m.state() == MemberState.SPARE));
    }

    private static String outcome(MdAssembly.Result r, String device) {
        return r.devices().stream().filter(d -> d.device().equals(device)).findFirst().orElseThrow().outcome();
    }

    @Test
    void aMemberFailureIsOnTheSurvivorsBeforeTheWriteCompletes() {
        MdArray a = raid1("sb-fail", 16 * MIB, "f0", "f1");
        write(a, 0, pattern(1, CHUNK));
        long before = Examination.of(devices.get("f0")).sb().events();
        ((Disk) devices.get("f1")).faults(new DiskFaults(false, true, false));

        write(a, 4 * MIB, pattern(2, 4096));

        // the write has completed: the survivor's superblock already records f1 failed, with more events
        Superblock survivor = Examination.of(devices.get("f0")).sb();
        assertThat(survivor.events()).isGreaterThan(before);
        assertThat(survivor.roleOf(1)).isEqualTo(Superblock.ROLE_FAULTY);
        assertThat(Examination.of(devices.get("f1")).sb().roleOf(1)).as("f1's own superblock is not rewritten").isEqualTo(1);
    }

    /** Acceptance 2a on the engine: fail on an I/O error, crash, assemble: the member is stale and re-added through the bitmap. */
    @Test
    void aMemberThatFailedJustBeforeACrashIsRebuiltThroughTheBitmap() {
        MdArray a = raid1("sb-crash", 16 * MIB, "c0", "c1");
        byte[] first = pattern(3, (int) MIB);
        write(a, 0, first);
        // the bitmap daemon (1 s here) clears the first write's bits once they have been idle
        await().atMost(LONG).until(() -> a.detail().metadata().bitmap().dirtyChunks() == 0);
        ((Disk) devices.get("c1")).faults(new DiskFaults(false, true, false));
        byte[] acked = pattern(4, 8192);
        write(a, 6 * MIB, acked);
        ((Disk) devices.get("c1")).faults(DiskFaults.NONE);

        MdAssembly.Result r = crashAndAssemble(a, "c0", "c1");
        MdArray again = r.array();
        assertThat(outcome(r, "c0")).isEqualTo("in_sync");
        assertThat(outcome(r, "c1")).isEqualTo("re-added");
        assertThat(r.devices().get(1).reason()).contains("bitmap");
        settled(again);

        assertThat(read(again, 6 * MIB, acked.length)).isEqualTo(acked);
        assertThat(read(again, 0, first.length)).isEqualTo(first);
        assertThat(again.detail().recoveredBytes()).as("only the dirty chunk is copied").isEqualTo(CHUNK);
        long offset = again.dataOffset();
        assertThat(read(devices.get("c1"), offset + 6 * MIB, acked.length)).isEqualTo(acked);
    }

    /** After an unclean shutdown only the bitmap's dirty chunks are resynced; a difference elsewhere is left for a check. */
    @Test
    void anUncleanShutdownResyncsOnlyTheDirtyChunks() {
        // a daemon that does not wake before the crash, so the written chunk's bit is still set
        MdArray a = raid1("sb-unclean", 16 * MIB, 3600, "u0", "u1");
        write(a, 2 * MIB, pattern(5, 4096));
        long offset = a.dataOffset();
        MdAssembly.Result r;
        // a write that reached only u0 before the crash, in the dirty chunk; and a stray difference in a clean one
        write(devices.get("u0"), offset + 2 * MIB + 4096, pattern(6, 4096));
        write(devices.get("u1"), offset + 10 * MIB, pattern(7, 4096));
        // what the assembly will find on disk (after it, the resync may already have cleared it)
        assertThat(Examination.of(devices.get("u0")).dirtyBits()).as("dirty bits on u0 at the crash").isEqualTo(1);
        r = crashAndAssemble(a, "u0", "u1");
        MdArray again = r.array();
        settled(again);
        assertThat(again.detail().lastSyncAction()).isEqualTo(SyncAction.RESYNC);
        assertThat(again.detail().mismatchSectors()).as("the dirty chunk's differing page").isEqualTo(8);
        assertThat(read(devices.get("u1"), offset + 2 * MIB + 4096, 4096))
                .isEqualTo(read(devices.get("u0"), offset + 2 * MIB + 4096, 4096));

        again.sync("check");
        await().atMost(LONG).until(() -> again.detail().lastSyncAction() == SyncAction.CHECK
                && again.detail().sync().action() == SyncAction.IDLE);
        assertThat(again.detail().mismatchSectors()).as("the clean chunk was not resynced").isEqualTo(8);
    }

    @Test
    void aCleanStopNeedsNoResync() {
        MdArray a = raid1("sb-clean", 16 * MIB, "k0", "k1");
        write(a, 0, pattern(8, 4096));
        a.stop();
        arrays.stop(a.name());
        Superblock sb = Examination.of(devices.get("k0")).sb();
        assertThat(sb.clean()).isTrue();
        MdAssembly.Result r = members.assemble(a.spec(), 2, List.of("k0", "k1"));
        assertThat(r.array().detail().metadata().bitmap().neededChunks()).isZero();
        assertThat(r.array().detail().metadata().events()).isGreaterThan(sb.events());
        assertThat(read(r.array(), 0, 4096)).isEqualTo(pattern(8, 4096));
    }

    /**
     * mdadm --write-mostly is md's dev_flags WriteMostly1 in the member's own superblock: written
     * when the flag changes, read back by assembly from the members and by a re-add.
     */
    @Test
    void writeMostlyIsInTheMembersSuperblock() {
        MdArray a = raid1("sb-wm", 16 * MIB, "w0", "w1");
        assertThat(Examination.of(devices.get("w1")).sb().writeMostly()).isFalse();
        a.writeMostly("w1", true);
        await().atMost(LONG).until(() -> Examination.of(devices.get("w1")).sb().writeMostly());
        assertThat(Examination.of(devices.get("w0")).sb().writeMostly()).isFalse();
        a.stop();
        arrays.stop(a.name());

        MdArray again = members.assemble(a.spec(), 2, List.of("w0", "w1")).array();
        assertThat(again.detail().members()).extracting(MdDetail.MemberDetail::device, MdDetail.MemberDetail::writeMostly)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("w0", false),
                        org.assertj.core.groups.Tuple.tuple("w1", true));
        // a re-add by a fresh array (no memory of the member): the superblock says write-mostly
        again.fail("w1");
        again.remove("w1");
        again.stop();
        arrays.stop(again.name());
        MdArray third = members.assemble(a.spec(), 2, List.of("w0")).array();
        third.reAdd(devices.get("w1"));
        assertThat(third.detail().members()).filteredOn(m -> "w1".equals(m.device()))
                .extracting(MdDetail.MemberDetail::writeMostly).containsExactly(true);
        settled(third);
    }

    /**
     * A member failed and then removed while the round recording its failure is under way is not
     * written by that round (md never writes a Faulty member's superblock): its own superblock
     * still places it in its slot, so {@code --re-add} takes it back. The round is held at its
     * first write (the bitmap's event count, on the survivor) while the member is removed.
     */
    @Test
    void aMemberRemovedWhileItsFailureIsRecordedKeepsItsOwnSuperblock() {
        disk("h1", 16 * MIB);
        HoldingDevice h0 = new HoldingDevice(disk("h0", 16 * MIB));
        devices.put("h0", h0);
        MdArraySpec spec = MdArraySpec.of("sb-hold", MdLevel.RAID1).withSpeed(SpeedLimits.UNLIMITED).withAssumeClean(true)
                .withMetadata(MetadataSpec.v12(new MetadataSpec.Bitmap(CHUNK, 3600)));
        MdArray a = members.create(spec, List.of("h0", "h1"));
        write(a, 0, pattern(11, CHUNK));
        await().atMost(LONG).until(() -> Examination.of(h0).sb().clean());

        h0.holdNextWrite();
        a.fail("h1");
        await().atMost(LONG).until(() -> h0.held() == 1);
        a.remove("h1");
        h0.release();

        a.stop(); // every round has ended
        arrays.stop(a.name());

        assertThat(Examination.of(devices.get("h1")).sb().roleOf(1)).as("h1's own superblock").isEqualTo(1);
        MdArray again = members.assemble(spec, 2, List.of("h0")).array();
        assertThat(again.reAdd(devices.get("h1"))).isEqualTo("bitmap");
        settled(again);
    }

    /** mdadm --re-add with a bitmap: only what was written while the member was out is copied. */
    @Test
    void aReAddCopiesOnlyWhatWasWrittenWhileTheMemberWasOut() {
        MdArray a = raid1("sb-readd", 64 * MIB, "r0", "r1");
        write(a, 0, pattern(9, (int) (4 * MIB)));
        a.fail("r1");
        a.remove("r1");
        byte[] missed = pattern(10, (int) MIB);
        write(a, 20 * MIB, missed);
        assertThat(a.reAdd(devices.get("r1"))).isEqualTo("bitmap");
        settled(a);
        assertThat(a.detail().recoveredBytes()).isEqualTo(MIB);
        long offset = a.dataOffset();
        assertThat(read(devices.get("r1"), offset, (int) (30 * MIB))).isEqualTo(read(devices.get("r0"), offset, (int) (30 * MIB)));
    }

    @Test
    void aCrashDuringRecoveryCarriesOnFromTheCheckpoint() {
        MdArray a = raid1("sb-recover", 32 * MIB, "v0", "v1");
        byte[] data = pattern(11, (int) (8 * MIB));
        write(a, 8 * MIB, data);
        a.fail("v1");
        a.remove("v1");
        disk("v2", 32 * MIB);
        a.speedLimits(new SpeedLimits(4096, 4096));
        a.add(devices.get("v2"));
        await().atMost(LONG).until(() -> Examination.of(devices.get("v2")).sb().recoveryOffset() > 0);

        MdAssembly.Result r = crashAndAssemble(a, "v0", "v2");
        assertThat(outcome(r, "v2")).isEqualTo("rebuilding");
        MdArray again = r.array();
        again.speedLimits(SpeedLimits.UNLIMITED);
        settled(again);
        assertThat(again.detail().recoveredBytes()).isLessThan(again.detail().usedDevSizeBytes());
        again.fail("v0");
        assertThat(read(again, 8 * MIB, data.length)).isEqualTo(data);
    }

    @Test
    void aTornSuperblockIsRefusedAndTheArrayAssemblesFromTheOthers() {
        for (String m : List.of("t0", "t1", "t2")) {
            disk(m, 16 * MIB);
        }
        MdArray a = members.create(MdArraySpec.of("sb-torn", MdLevel.RAID1).withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED)
                .withMetadata(MetadataSpec.v12(null)), List.of("t0", "t1", "t2"));
        byte[] data = pattern(12, 4096);
        write(a, MIB, data);
        a.stop();
        arrays.stop(a.name());
        byte[] block = read(devices.get("t2"), 4096, 4096);
        block[210] ^= 0x10;
        write(devices.get("t2"), 4096, block);

        MdAssembly.Result r = members.assemble(a.spec(), 3, List.of("t0", "t1", "t2"));
        assertThat(outcome(r, "t2")).isEqualTo("refused");
        assertThat(r.devices().get(2).reason()).contains("checksum", "torn or corrupt");
        assertThat(r.array().detail().activeDevices()).isEqualTo(2);
        assertThat(read(r.array(), MIB, 4096)).isEqualTo(data);
        assertThat(Arrays.stream(new String[] {"t0", "t1"}).map(d -> outcome(r, d))).containsOnly("in_sync");
    }
}
