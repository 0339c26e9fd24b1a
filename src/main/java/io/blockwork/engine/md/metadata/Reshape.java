package io.blockwork.engine.md.metadata;

import java.nio.ByteBuffer;

/**
 * The v1 superblock's reshape fields (bytes 100 to 127 of {@code struct mdp_superblock_1}): how far
 * a reshape has gone and the geometry the array is going to. md reads them only while
 * {@link Superblock#FEATURE_RESHAPE_ACTIVE} is set; the superblock's own level, layout, chunk and
 * raid_disks are then the new geometry's disk count and the old geometry's level, layout and chunk,
 * as md_p.h has them ({@code raid_disks - delta_disks} is the count before).
 *
 * <pre>
 * 100 new_level          the level being reshaped to
 * 104 reshape_position   next array sector to reshape (forwards: below it is in the new geometry)
 * 112 delta_disks        change in raid_disks (signed)
 * 116 new_layout, 120 new_chunk (sectors)
 * 124 new_offset         signed sectors added to data_offset in the new geometry (with
 *                        FEATURE_NEW_OFFSET: md moves the data instead of using a backup area)
 * </pre>
 *
 * @param newLevel md's level number after the reshape
 * @param positionSectors array sectors already in the new geometry (reshaping forwards); md's u64, as read
 * @param deltaDisks members added (negative: removed)
 * @param newLayout the layout code after the reshape
 * @param newChunkSectors the chunk after the reshape, in sectors
 * @param newOffsetSectors the change to each member's data offset, in sectors
 */
public record Reshape(int newLevel, long positionSectors, int deltaDisks, int newLayout, int newChunkSectors,
                      int newOffsetSectors) {

    /** What an array that is not reshaping carries: zeros, as md leaves them. */
    public static final Reshape NONE = new Reshape(0, 0, 0, 0, 0, 0);

    void write(ByteBuffer b) {
        b.putInt(100, newLevel).putLong(104, positionSectors).putInt(112, deltaDisks).putInt(116, newLayout)
                .putInt(120, newChunkSectors).putInt(124, newOffsetSectors);
    }

    static Reshape read(ByteBuffer b) {
        return new Reshape(b.getInt(100), b.getLong(104), b.getInt(112), b.getInt(116), b.getInt(120), b.getInt(124));
    }
}
