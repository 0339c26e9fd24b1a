package io.blockwork.engine.md.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/** mdadm 4.x's placement rules (super1.c), by worked examples. */
@Tag("unit")
class MemberLayoutTest {

    private static final long GIB_SECTORS = 2L * 1024 * 1024;

    @Test
    void bitmapRoomGrowsWithTheDevice() {
        assertThat(MemberLayout.bitmapSpace(100)).isZero();
        assertThat(MemberLayout.bitmapSpace(GIB_SECTORS)).isEqualTo(8);
        assertThat(MemberLayout.bitmapSpace(9 * GIB_SECTORS)).isEqualTo(128);
        assertThat(MemberLayout.bitmapSpace(201 * GIB_SECTORS)).isEqualTo(256);
    }

    /** About 0.1% headroom, at most 128 MiB, at least two chunks, rounded up to 1 MiB. */
    @Test
    void dataOffsetLeavesHeadroomRoundedToAMegabyte() {
        assertThat(MemberLayout.defaultDataOffset(64 * 2048, 0)).isEqualTo(2048);
        assertThat(MemberLayout.defaultDataOffset(GIB_SECTORS, 0)).isEqualTo(4096);
        assertThat(MemberLayout.defaultDataOffset(1024 * GIB_SECTORS, 0)).isEqualTo(264192);
        // a 512 KiB chunk keeps two chunks (2048 sectors) of headroom where 128 would do: 24 + 8 + 2048 rounds to 4096
        assertThat(MemberLayout.defaultDataOffset(64 * 2048, 1024)).isEqualTo(4096);
    }

    @Test
    void theBadBlockLogGoesAfterTheBitmapWhenThereIsRoom() {
        assertThat(MemberLayout.of(2048, 8)).isEqualTo(new MemberLayout(2048, 8, 16, 8));
        assertThat(MemberLayout.of(24, 8)).isEqualTo(new MemberLayout(24, 8, 8, 8));
        assertThat(MemberLayout.of(16, 8)).isEqualTo(new MemberLayout(16, 8, 0, 0));
    }

    @Test
    void bitmapChunksFitTheRoomAndDefaultToAbout16384Chunks() {
        assertThat(MemberLayout.smallestBitmapChunk(GIB_SECTORS, GIB_SECTORS)).isEqualTo(65536);
        assertThat(MemberLayout.defaultBitmapChunk(GIB_SECTORS, GIB_SECTORS)).isEqualTo(65536);
        assertThat(MemberLayout.defaultBitmapChunk(16 * 2048, 16 * 2048)).isEqualTo(65536);
        assertThat(MemberLayout.defaultBitmapChunk(4096 * GIB_SECTORS, 4096 * GIB_SECTORS)).isEqualTo(64L << 20);
        assertThat(MemberLayout.defaultBitmapChunk(64 * GIB_SECTORS, 64 * GIB_SECTORS)).isEqualTo(4L << 20);
    }
}
