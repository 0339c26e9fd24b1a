package io.blockwork.engine.md.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/** The v1.2 superblock's layout, checksum and the refusals of a torn or foreign one. */
@Tag("unit")
class SuperblockTest {

    static Superblock sample(long events, int devNumber, List<Integer> roles) {
        return new Superblock(Superblock.FEATURE_BITMAP_OFFSET, MdUuid.parse("3b5a6f1e:0c2d4e6f:8a9b0c1d:2e3f4a5b"), "md0",
                Superblock.packTime(Instant.parse("2026-12-01T10:00:00.123456Z")), 10, 0x102, 63488, 1024, 4, 8, Reshape.NONE, 2048, 63488,
                8, 0, devNumber, MdUuid.parse("00112233-4455-6677-8899-aabbccddeeff"), 0, 0, 8, 16,
                Superblock.packTime(Instant.parse("2026-12-02T10:00:00Z")), events, Superblock.MAX_SECTOR, roles);
    }

    static List<Integer> roles(int... r) {
        List<Integer> out = new ArrayList<>(Collections.nCopies(Superblock.maxDevFor(r.length), Superblock.ROLE_SPARE));
        for (int i = 0; i < r.length; i++) {
            out.set(i, r[i]);
        }
        return out;
    }

    @Test
    void fieldsSitWhereMdPutsThem() {
        byte[] b = sample(7, 2, roles(0, 1, 2, 3)).encode();
        ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(le.getInt(0)).isEqualTo(0xa92b4efc);
        assertThat(le.getInt(4)).isEqualTo(1);
        assertThat(b[16] & 0xff).isEqualTo(0x3b);
        assertThat(new String(b, 32, 3)).isEqualTo("md0");
        assertThat(le.getInt(72)).isEqualTo(10);
        assertThat(le.getInt(76)).isEqualTo(0x102);
        assertThat(le.getLong(80)).isEqualTo(63488);
        assertThat(le.getInt(88)).isEqualTo(1024);
        assertThat(le.getInt(92)).isEqualTo(4);
        assertThat(le.getInt(96)).isEqualTo(8);
        assertThat(le.getLong(128)).isEqualTo(2048);
        assertThat(le.getLong(144)).isEqualTo(8);
        assertThat(le.getInt(160)).isEqualTo(2);
        assertThat(le.getLong(200)).isEqualTo(7);
        assertThat(le.getLong(208)).isEqualTo(-1L);
        assertThat(le.getInt(220)).isEqualTo(128);
        assertThat(le.getShort(256 + 2 * 3)).isEqualTo((short) 3);
        assertThat(le.getShort(256 + 2 * 4) & 0xffff).isEqualTo(0xffff);
        assertThat(b[4095] & 0xff).isEqualTo(0xff);
    }

    @Test
    void reshapeFieldsSitWhereMdPutsThemAndComeBack() {
        Superblock s = sample(7, 2, roles(0, 1, 2, 3));
        Superblock reshaping = s.reshaping(new Reshape(6, 123_456_789_012L, -1, 18, 256, -2048));
        byte[] b = reshaping.encode();
        ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(le.getInt(8) & Superblock.FEATURE_RESHAPE_ACTIVE).isNotZero();
        assertThat(le.getInt(92)).as("raid_disks: the count it goes to").isEqualTo(3);
        assertThat(le.getInt(100)).isEqualTo(6);
        assertThat(le.getLong(104)).isEqualTo(123_456_789_012L);
        assertThat(le.getInt(112)).isEqualTo(-1);
        assertThat(le.getInt(116)).isEqualTo(18);
        assertThat(le.getInt(120)).isEqualTo(256);
        assertThat(le.getInt(124)).isEqualTo(-2048);
        Superblock.Decoded d = Superblock.decode(b, 8);
        assertThat(d.checksumCorrect()).isTrue();
        assertThat(d.superblock()).isEqualTo(reshaping);
        // an array that is not reshaping writes the fields as zeros, as md leaves them
        assertThat(java.util.Arrays.copyOfRange(s.encode(), 100, 128)).containsOnly(0);
    }

    @Test
    void decodesWhatItEncodesWithACorrectChecksum() {
        Superblock sb = sample(9, 1, roles(0, 1, Superblock.ROLE_FAULTY, 3));
        Superblock.Decoded d = Superblock.decode(sb.encode(), 8);
        assertThat(d.superblock()).isEqualTo(sb);
        assertThat(d.checksumCorrect()).isTrue();
        assertThat(d.superblock().ownRole()).isEqualTo(1);
        assertThat(d.superblock().roleOf(2)).isEqualTo(Superblock.ROLE_FAULTY);
        assertThat(d.superblock().roleOf(500)).isEqualTo(Superblock.ROLE_SPARE);
        assertThat(d.superblock().created()).isEqualTo(Instant.parse("2026-12-01T10:00:00.123456Z"));
    }

    /** calc_sb_1_csum by hand: 32-bit little-endian words with sb_csum as zero, the carry folded in. */
    @Test
    void checksumIsMdsWordSumWithTheCarryFolded() {
        byte[] b = sample(3, 0, roles(0, 1)).encode();
        ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        long sum = 0;
        for (int at = 0; at < 256 + 2 * le.getInt(220); at += 4) {
            sum += at == 216 ? 0 : Integer.toUnsignedLong(le.getInt(at));
        }
        assertThat(le.getInt(216)).isEqualTo((int) ((sum & 0xffffffffL) + (sum >>> 32)));
    }

    @Test
    void aFlippedBitIsATornSuperblock() {
        byte[] b = sample(3, 0, roles(0, 1)).encode();
        b[200] ^= 1;
        Superblock.Decoded d = Superblock.decode(b, 8);
        assertThat(d.checksumCorrect()).isFalse();
        assertThat(d.expectedChecksum()).isNotEqualTo(d.storedChecksum());
    }

    @Test
    void refusesWhatIsNoV12Superblock() {
        assertThatThrownBy(() -> Superblock.decode(new byte[4096], 8)).isInstanceOf(MetadataException.class)
                .hasMessageContaining("blank").matches(e -> ((MetadataException) e).blank());
        byte[] garbage = new byte[4096];
        garbage[0] = 0x12;
        assertThatThrownBy(() -> Superblock.decode(garbage, 8)).hasMessageContaining("magic is 00000012")
                .matches(e -> !((MetadataException) e).blank());
        byte[] elsewhere = sample(1, 0, roles(0)).encode();
        assertThatThrownBy(() -> Superblock.decode(elsewhere, 0)).hasMessageContaining("records offset 8");
        byte[] v0 = sample(1, 0, roles(0)).encode();
        v0[4] = 0;
        assertThatThrownBy(() -> Superblock.decode(v0, 8)).hasMessageContaining("major version 0");
        byte[] huge = sample(1, 0, roles(0)).encode();
        ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putInt(220, 5000);
        assertThatThrownBy(() -> Superblock.decode(huge, 8)).hasMessageContaining("max_dev 5000");
    }

    @Test
    void maxDevFillsWholeSectorsAsMdadmSizesIt() {
        assertThat(Superblock.maxDevFor(2)).isEqualTo(128);
        assertThat(Superblock.maxDevFor(128)).isEqualTo(128);
        assertThat(Superblock.maxDevFor(129)).isEqualTo(384);
    }

    @Test
    void uuidsPrintAsMdadmDoes() {
        MdUuid u = MdUuid.parse("3B5A6F1E-0C2D-4E6F-8A9B-0C1D2E3F4A5B");
        assertThat(u).hasToString("3b5a6f1e:0c2d4e6f:8a9b0c1d:2e3f4a5b");
        assertThat(MdUuid.parse(u.toString())).isEqualTo(u);
        assertThat(MdUuid.of(u.bytes(), 0)).isEqualTo(u);
        assertThatThrownBy(() -> MdUuid.parse("xyz")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void bitmapSuperblockRoundTripsAndChecksItsArray() {
        MdUuid uuid = MdUuid.random();
        BitmapSuperblock b = new BitmapSuperblock(4, uuid, 12, 10, 2097152, 0, 65536, 5, 0, 8);
        byte[] area = new byte[512];
        b.encode(area, 0);
        assertThat(ByteBuffer.wrap(area).order(ByteOrder.LITTLE_ENDIAN).getInt(0)).isEqualTo(0x6d746962);
        assertThat(BitmapSuperblock.decode(area, 0, uuid)).isEqualTo(b);
        assertThat(b.bits()).isEqualTo(16384);
        assertThat(BitmapSuperblock.areaBytes(16384, 4096)).isEqualTo(4096);
        assertThatThrownBy(() -> BitmapSuperblock.decode(area, 0, MdUuid.random())).hasMessageContaining("belongs to array");
        assertThatThrownBy(() -> new BitmapSuperblock(4, uuid, 0, 0, 8, 0, 3000, 5, 0, 8)).hasMessageContaining("power of two");
    }
}
