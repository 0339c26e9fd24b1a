package io.blockwork.engine.md.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.md.metadata.AssemblyPlan.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/** md's and mdadm's assembly rules on superblocks alone. */
@Tag("unit")
class AssemblyPlanTest {

    private static final MdUuid ARRAY = MdUuid.parse("11111111:22222222:33333333:44444444");
    private static final MdUuid OTHER = MdUuid.parse("55555555:66666666:77777777:88888888");

    /** A raid1 member superblock: 2 slots, dev_number {@code dev}, event count {@code events}, roles by dev_number. */
    private static Superblock sb(MdUuid uuid, int dev, long events, int features, long recovery, int... roles) {
        Superblock base = SuperblockTest.sample(events, dev, SuperblockTest.roles(roles));
        return new Superblock(features, uuid, "md0", base.ctime(), 1, 0, 4096, 0, 2, 8, Reshape.NONE, 2048, 4096, 8, recovery, dev,
                MdUuid.random(), 0, 0, 8, 16, base.utime(), events, Superblock.MAX_SECTOR, base.roles());
    }

    private static Examination exam(String name, Superblock sb) {
        return exam(name, sb, null);
    }

    private static Examination exam(String name, Superblock sb, BitmapSuperblock bitmap) {
        return new Examination(name, 1L << 30, Superblock.decode(sb.encode(), 8), null, false, bitmap,
                bitmap == null ? null : new byte[8], null);
    }

    private static BitmapSuperblock bitmap(long eventsCleared) {
        return new BitmapSuperblock(4, ARRAY, 20, eventsCleared, 4096, 0, 65536, 5, 0, 8);
    }

    @Test
    void equalEventsAreInSyncInTheirOwnSlots() {
        AssemblyPlan p = AssemblyPlan.of(List.of(exam("a", sb(ARRAY, 0, 10, 0, 0, 0, 1)), exam("b", sb(ARRAY, 1, 10, 0, 0, 0, 1))), null);
        assertThat(p.decisions()).extracting(AssemblyPlan.Decision::kind, AssemblyPlan.Decision::slot)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Kind.IN_SYNC, 0), org.assertj.core.groups.Tuple.tuple(Kind.IN_SYNC, 1));
        assertThat(p.freshest().events()).isEqualTo(10);
    }

    /**
     * The crash the issue describes: b failed, the survivor recorded it faulty (events 11) before
     * the write completed, then the service died. b's own superblock still says slot 1, events 10:
     * within md's margin of one, but the freshest says faulty, so b is stale.
     */
    @Test
    void aMemberTheFreshestRecordsFaultyIsStaleThoughOnlyOneEventBehind() {
        Superblock survivor = sb(ARRAY, 0, 11, Superblock.FEATURE_BITMAP_OFFSET, 0, 0, Superblock.ROLE_FAULTY);
        Superblock failed = sb(ARRAY, 1, 10, Superblock.FEATURE_BITMAP_OFFSET, 0, 0, 1);
        AssemblyPlan p = AssemblyPlan.of(List.of(exam("a", survivor, bitmap(9)), exam("b", failed, bitmap(9))), ARRAY);
        assertThat(p.decisions().get(0).kind()).isEqualTo(Kind.IN_SYNC);
        AssemblyPlan.Decision b = p.decisions().get(1);
        assertThat(b.kind()).isEqualTo(Kind.STALE);
        assertThat(b.slot()).isEqualTo(1);
        assertThat(b.throughBitmap()).isTrue();
        assertThat(b.reason()).contains("events 10 of 11", "bitmap");
    }

    @Test
    void aMemberOlderThanTheBitmapsEventsClearedIsRebuiltInFull() {
        Superblock fresh = sb(ARRAY, 0, 30, Superblock.FEATURE_BITMAP_OFFSET, 0, 0, 1);
        Superblock old = sb(ARRAY, 1, 12, Superblock.FEATURE_BITMAP_OFFSET, 0, 0, 1);
        AssemblyPlan p = AssemblyPlan.of(List.of(exam("a", fresh, bitmap(20)), exam("b", old, bitmap(9))), ARRAY);
        assertThat(p.decisions().get(1).kind()).isEqualTo(Kind.STALE);
        assertThat(p.decisions().get(1).throughBitmap()).isFalse();
        assertThat(p.bitmap().eventsCleared()).isEqualTo(20);
    }

    @Test
    void aRebuildingMemberCarriesOnFromItsRecoveryOffset() {
        Superblock a = sb(ARRAY, 0, 8, 0, 0, 0, 1);
        Superblock b = sb(ARRAY, 1, 8, Superblock.FEATURE_RECOVERY_OFFSET, 1000, 0, 1);
        AssemblyPlan p = AssemblyPlan.of(List.of(exam("a", a), exam("b", b)), ARRAY);
        AssemblyPlan.Decision d = p.decisions().get(1);
        assertThat(d.kind()).isEqualTo(Kind.REBUILDING);
        assertThat(d.recoveryBytes()).isEqualTo(1000 * 512);
        assertThat(d.throughBitmap()).isFalse();
    }

    @Test
    void tornForeignAndDisagreeingSuperblocksAreRefusedWithTheirReasons() {
        Superblock good = sb(ARRAY, 0, 8, 0, 0, 0, 1);
        byte[] torn = sb(ARRAY, 1, 8, 0, 0, 0, 1).encode();
        torn[300] ^= 0x40;
        Examination tornExam = new Examination("torn", 1L << 30, Superblock.decode(torn, 8),
                "superblock checksum is x, expected y (torn or corrupt superblock)", false, null, null, null);
        Superblock foreign = sb(OTHER, 1, 50, 0, 0, 0, 1);
        Superblock base = sb(ARRAY, 1, 8, 0, 0, 0, 1);
        Superblock otherLevel = new Superblock(0, ARRAY, "md0", base.ctime(), 10, 0x102, 4096, 128, 2, 8, Reshape.NONE, 2048, 4096, 8, 0, 1,
                MdUuid.random(), 0, 0, 8, 16, base.utime(), 8, Superblock.MAX_SECTOR, base.roles());
        AssemblyPlan p = AssemblyPlan.of(List.of(exam("a", good), tornExam, exam("c", foreign), exam("d", otherLevel)), ARRAY);
        assertThat(p.decisions()).extracting(AssemblyPlan.Decision::kind)
                .containsExactly(Kind.IN_SYNC, Kind.REFUSED, Kind.REFUSED, Kind.REFUSED);
        assertThat(p.decisions().get(1).reason()).contains("torn or corrupt");
        assertThat(p.decisions().get(2).reason()).contains("belongs to array " + OTHER);
        assertThat(p.decisions().get(3).reason()).contains("level differs");
        assertThat(p.freshest().events()).as("a foreign array's higher events do not count").isEqualTo(8);
    }

    @Test
    void devicesOfTwoArraysNeedToBeTold() {
        assertThatThrownBy(() -> AssemblyPlan.of(List.of(exam("a", sb(ARRAY, 0, 8, 0, 0, 0, 1)),
                exam("b", sb(OTHER, 0, 8, 0, 0, 0, 1))), null))
                .isInstanceOf(MetadataException.class).hasMessageContaining("different arrays").hasMessageContaining("a to " + ARRAY);
    }

    @Test
    void aSecondClaimOnASlotBecomesASpare() {
        AssemblyPlan p = AssemblyPlan.of(List.of(exam("a", sb(ARRAY, 0, 8, 0, 0, 0, 1)), exam("b", sb(ARRAY, 5, 8, 0, 0, 0, 1, 0, 0, 0, 0))), ARRAY);
        assertThat(p.decisions().get(1).kind()).isEqualTo(Kind.SPARE);
        assertThat(p.decisions().get(1).reason()).contains("slot 0 is filled");
    }
}
