package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;

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
}
