package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;

/**
 * md's raid10 personality: placement from {@link Raid10Geometry}, one global resync barrier whose
 * fast path is the seed-001 strategy in use ({@link OptimisticBarrier} or {@link LockedBarrier}).
 * The core splits bios at chunk boundaries, so every bio maps to one contiguous range per copy.
 */
final class Raid10 extends Mirrored {

    private final Raid10Geometry geo;
    private final long chunk;
    private final long size;
    private final long memberBytes;

    Raid10(MemberSet members, Raid10Geometry geo, boolean clean, BarrierStrategy strategy) {
        super(members, clean, strategy == BarrierStrategy.OPTIMISTIC ? OptimisticBarrier::new : LockedBarrier::new);
        this.geo = geo;
        this.chunk = geo.chunkSectors() << 9;
        this.size = geo.arraySectors() << 9;
        this.memberBytes = geo.devSectors() << 9;
    }

    Raid10Geometry geometry() {
        return geo;
    }

    @Override
    public MdLevel level() {
        return MdLevel.RAID10;
    }

    @Override
    public long sizeBytes() {
        return size;
    }

    @Override
    public long usedMemberBytes() {
        return memberBytes;
    }

    @Override
    public long boundaryBytes() {
        return chunk;
    }

    @Override
    int copies() {
        return geo.copies();
    }

    @Override
    long place(long offset, int copy) {
        long located = geo.locate(offset >>> 9, copy);
        return at(Raid10Geometry.dev(located), Raid10Geometry.sector(located) << 9);
    }

    @Override
    boolean barrierCovers(Bio bio) {
        return true;
    }

    @Override
    int preferredCopy(long offset) {
        return (int) ((offset >>> 16) % geo.copies());
    }

    @Override
    long syncWindowAt(long offset) {
        return Math.min(Math.min(WINDOW, chunk - offset % chunk), size - offset);
    }

    @Override
    long recoveryBytes() {
        return memberBytes;
    }

    @Override
    long recoveryWindowAt(long addr) {
        return Math.min(Math.min(WINDOW, chunk - addr % chunk), memberBytes - addr);
    }

    @Override
    long arrayOffsetOf(int slot, long addr) {
        long v = geo.findVirt(addr >>> 9, slot);
        return v < geo.arraySectors() ? v << 9 : -1;
    }

    /**
     * Every virtual chunk keeps an in-sync copy. The devices holding a chunk's copies depend only
     * on its first device, {@code chunk * near mod disks}, so chunks 0..disks-1 show every case.
     */
    @Override
    public boolean survives(MemberSet.Table table) {
        int shift = Long.numberOfTrailingZeros(geo.chunkSectors());
        for (long c = 0; c < geo.disks(); c++) {
            boolean kept = false;
            for (int copy = 0; copy < geo.copies() && !kept; copy++) {
                Member m = table.slots()[Raid10Geometry.dev(geo.locate(c << shift, copy))];
                kept = m != null && m.state() == MemberState.IN_SYNC;
            }
            if (!kept) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int layoutCode() {
        return geo.layout().code();
    }

    /** As raid10_status prints it. */
    @Override
    public String mdstatGeometry() {
        Raid10Layout l = geo.layout();
        StringBuilder s = new StringBuilder();
        if (l.near() < geo.disks()) {
            s.append(' ').append(chunk / 1024).append("K chunks");
        }
        if (l.near() > 1) {
            s.append(' ').append(l.near()).append(" near-copies");
        }
        if (l.far() > 1) {
            s.append(' ').append(l.far()).append(l.offset() ? " offset-copies" : " far-copies");
        }
        return s.toString();
    }
}
