package io.blockwork.engine.md.metadata;

/**
 * Where things sit on a v1.2 member, chosen as mdadm 4.x chooses them (super1.c): the superblock 4
 * KiB from the start, the bitmap 4 KiB after it, a bad-block log after the bitmap when there is
 * room, and the data from {@code dataOffset}, which leaves headroom of about 0.1% of the device
 * (at most 128 MiB, at least two chunks) rounded up to 1 MiB.
 *
 * <pre>
 *   sector 0      8          16                 16+bitmap   +8           dataOffset
 *          | free | superblock | bitmap super + bits | bblog | headroom  | data ...
 * </pre>
 *
 * @param dataOffset sectors before the data
 * @param bitmapSectors sectors the bitmap area may use (the bitmap's own size rounded to 4 KiB
 *        when there is one, else the space mdadm reserves for adding one later)
 * @param bblogOffset sectors from the superblock to the (empty) bad-block log; 0 for none
 * @param bblogSize sectors of the bad-block log; 0 for none
 */
public record MemberLayout(long dataOffset, long bitmapSectors, int bblogOffset, int bblogSize) {

    /** Sectors from the superblock to the bitmap (mdadm's choice for v1.2). */
    public static final int BITMAP_OFFSET = 8;
    private static final long ONE_MEG = 2048;
    private static final long KIB = 1024;

    /**
     * mdadm's {@code choose_bm_space}: bitmap room for a device (or array part) of {@code sectors}:
     * 4 KiB, 64 KiB above 8 GiB, 128 KiB above 200 GiB.
     */
    public static long bitmapSpace(long sectors) {
        if (sectors < 64 * 2) {
            return 0;
        }
        if (sectors - 64 * 2 >= 200L * 1024 * 1024 * 2) {
            return 128 * 2;
        }
        if (sectors - 4 * 2 > 8L * 1024 * 1024 * 2) {
            return 64 * 2;
        }
        return 4 * 2;
    }

    /**
     * mdadm's default data offset ({@code validate_geometry1}) for a member of {@code devSectors}
     * in an array with chunks of {@code chunkSectors} (0 for raid1 and linear without rounding).
     */
    public static long defaultDataOffset(long devSectors, long chunkSectors) {
        long headroom = 128 * 1024 * 2;
        while ((headroom << 10) > devSectors && (chunkSectors == 0 || headroom / 2 >= chunkSectors * 2)) {
            headroom >>= 1;
        }
        long offset = 12 * 2 + bitmapSpace(devSectors) + headroom;
        return (offset + ONE_MEG - 1) / ONE_MEG * ONE_MEG;
    }

    /**
     * The layout for data at {@code dataOffset} with a bitmap area of {@code bitmapSectors}; the
     * bad-block log goes after the bitmap when the data leaves room, as write_init_super1 puts it.
     */
    public static MemberLayout of(long dataOffset, long bitmapSectors) {
        long sb = Superblock.V12_SUPER_OFFSET;
        if (dataOffset >= sb + BITMAP_OFFSET + bitmapSectors + 8) {
            return new MemberLayout(dataOffset, bitmapSectors, (int) (BITMAP_OFFSET + bitmapSectors), 8);
        }
        if (dataOffset >= sb + 16) {
            return new MemberLayout(dataOffset, bitmapSectors, (int) (dataOffset - 8 - sb), 8);
        }
        return new MemberLayout(dataOffset, bitmapSectors, 0, 0);
    }

    /**
     * The finest bitmap chunk whose bits fit in mdadm's room for an array using {@code usedSectors}
     * of each member ({@code add_internal_bitmap1}); 0 when there is no room for a bitmap at all.
     */
    public static long smallestBitmapChunk(long syncSectors, long usedSectors) {
        long room = bitmapSpace(usedSectors);
        if (room <= 1) {
            return 0;
        }
        long maxBits = (room * 512 - BitmapSuperblock.SIZE) * 8;
        long chunk = 4096;
        long bits = syncSectors * 512 / chunk + 1;
        while (bits > maxBits) {
            chunk *= 2;
            bits = (bits + 1) / 2;
        }
        return chunk;
    }

    /**
     * Blockwork's default bitmap chunk: about 16384 chunks over the sync range, between 64 KiB and
     * mdadm's 64 MiB, and never finer than the room allows. mdadm always takes 64 MiB, which suits
     * terabyte members; on the small arrays Blockwork mostly serves it would make every re-add a
     * near-full rebuild.
     */
    public static long defaultBitmapChunk(long syncSectors, long usedSectors) {
        long wanted = Long.highestOneBit(Math.max(1, syncSectors * 512 / 16384 - 1)) << 1;
        long chunk = Math.clamp(wanted, 64 * KIB, 64 * KIB * KIB);
        return Math.max(chunk, smallestBitmapChunk(syncSectors, usedSectors));
    }
}
