package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;

/**
 * md's raid1 personality: every slot holds the whole array at the same address. The array is the
 * smallest member rounded down to 64 KiB (mdadm rounds raid1 so that it could later be reshaped
 * to a level with chunks). Writes pass the bucketed barrier ({@link BucketBarrier}); the core
 * splits bios at its 64 MiB units.
 */
final class Raid1 extends Mirrored {

    private static final long ROUNDING = 64 * 1024;
    private static final long UNIT = 1L << BucketBarrier.UNIT_SHIFT;

    private final int width;
    private final long size;

    Raid1(MemberSet members, int width, long smallestMember, boolean clean) {
        super(members, clean, BucketBarrier::new);
        this.width = width;
        this.size = smallestMember / ROUNDING * ROUNDING;
        if (size == 0) {
            throw new MdArgumentException("members", "the smallest member (" + smallestMember + " bytes) is below raid1's 64 KiB rounding");
        }
    }

    @Override
    public MdLevel level() {
        return MdLevel.RAID1;
    }

    @Override
    public long sizeBytes() {
        return size;
    }

    @Override
    public long usedMemberBytes() {
        return size;
    }

    /** Bios must not cross a barrier unit; an array within one unit needs no boundary. */
    @Override
    public long boundaryBytes() {
        return size > UNIT ? UNIT : 0;
    }

    @Override
    int copies() {
        return width;
    }

    @Override
    long place(long offset, int copy) {
        return at(copy, offset);
    }

    @Override
    boolean barrierCovers(Bio bio) {
        return bio.op().isWrite();
    }

    /** Spreads random reads over the mirrors while keeping a sequential stream on one for 64 KiB. */
    @Override
    int preferredCopy(long offset) {
        return (int) ((offset >>> 16) % width);
    }

    @Override
    long syncWindowAt(long offset) {
        return Math.min(Math.min(WINDOW, UNIT - offset % UNIT), size - offset);
    }

    @Override
    long recoveryBytes() {
        return size;
    }

    @Override
    long recoveryWindowAt(long addr) {
        return syncWindowAt(addr);
    }

    @Override
    long arrayOffsetOf(int slot, long addr) {
        return addr;
    }

    @Override
    public boolean survives(MemberSet.Table table) {
        for (Member m : table.slots()) {
            if (m != null && m.state() == MemberState.IN_SYNC) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String mdstatGeometry() {
        return "";
    }
}
