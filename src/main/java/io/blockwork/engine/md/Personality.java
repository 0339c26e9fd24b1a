package io.blockwork.engine.md;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.Extents;

/**
 * What one md level adds to the array core (md's {@code md_personality}): where data goes, how big
 * the array is, and whether it survives the loss of members. The core ({@link MdArray}) has
 * already checked geometry, split bios at {@link #boundaryBytes()}, handled flushes and refused
 * I/O on an inactive array.
 */
sealed interface Personality permits Linear, Raid0, Mirrored, Raid5 {

    MdLevel level();

    long sizeBytes();

    /** Bytes of each member in use (mdadm's "Used Dev Size"); for linear the smallest member's share. */
    long usedMemberBytes();

    /** A bio never crosses a multiple of this; 0 for none. */
    long boundaryBytes();

    /** Starts a READ, WRITE, DISCARD or WRITE_ZEROES that fits the limits and carries no PREFLUSH. */
    void submit(Bio bio);

    /**
     * What {@code [offset, offset+length)} of an active array holds (see
     * {@link io.blockwork.engine.block.BlockDevice#allocation}); levels that cannot tell exactly
     * report data.
     */
    default void allocation(long offset, long length, Extents out) {
        out.add(length, Allocation.DATA);
    }

    /** True if every block is readable from the in-sync members of {@code table}. */
    boolean survives(MemberSet.Table table);

    /** The survival rule of levels without redundancy: every slot in sync. */
    static boolean everySlotInSync(MemberSet.Table table) {
        for (Member m : table.slots()) {
            if (m == null || m.state() != MemberState.IN_SYNC) {
                return false;
            }
        }
        return true;
    }

    /** The level-specific middle of the /proc/mdstat status line, e.g. {@code " 512K chunks 2 near-copies"}. */
    String mdstatGeometry();

    /**
     * The range the write-intent bitmap covers, in bytes (md's resync_max_sectors): the array for
     * raid1 and raid10, each member's used bytes for raid4/5/6.
     */
    default long syncBytes() {
        return sizeBytes();
    }

    /** The superblock's {@code layout}: raid10's (raid5/6's) code, 0 for levels without one. */
    default int layoutCode() {
        return 0;
    }

    /**
     * The superblock's {@code data_size} for {@code m}: what of the member may hold data. mdadm
     * writes all the device holds past the data offset; levels that use less of each member than
     * md would compute from that (raid0's single zone, linear's rounding) record what they use,
     * so that md assembles the same layout.
     */
    default long recordedDataBytes(Member m) {
        return m.dataBytes();
    }
}
