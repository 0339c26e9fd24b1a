package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.Extents;

/**
 * md's raid0 personality with a single zone: chunk {@code c} lives on member {@code c mod n} at
 * that member's chunk {@code c / n}. Every member contributes the smallest member's size (rounded
 * down to the chunk, as mdadm does); md would also use the larger members' excess in further
 * zones, which Blockwork leaves unused (and a superblock records only the used part as the
 * member's data size, so md sees one zone too). The core splits at chunk boundaries, so every bio
 * maps to one member.
 */
final class Raid0 implements Personality {

    private final BlockDevice[] devices;
    private final long[] offsets;
    private final long chunk;
    private final int chunkShift;
    private final long memberBytes;

    Raid0(Member[] members, long chunk) {
        this.devices = new BlockDevice[members.length];
        this.offsets = new long[members.length];
        long smallest = Long.MAX_VALUE;
        for (int i = 0; i < members.length; i++) {
            devices[i] = members[i].device();
            offsets[i] = members[i].dataOffset();
            smallest = Math.min(smallest, members[i].dataBytes());
        }
        this.chunk = chunk;
        this.chunkShift = Long.numberOfTrailingZeros(chunk);
        this.memberBytes = smallest / chunk * chunk;
        if (memberBytes == 0) {
            throw new MdArgumentException("members", "the smallest member (" + smallest + " bytes) is smaller than one chunk");
        }
    }

    @Override
    public MdLevel level() {
        return MdLevel.RAID0;
    }

    @Override
    public long sizeBytes() {
        return memberBytes * devices.length;
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
    public void submit(Bio bio) {
        long c = bio.offset() >>> chunkShift;
        int n = devices.length;
        long row = c / n;
        int dev = (int) (c - row * n);
        devices[dev].submit(bio.remap(offsets[dev] + (row << chunkShift) + (bio.offset() & (chunk - 1))));
        bio.endio();
    }

    /** Chunk by chunk, each asked of the member {@link #submit} would send it to. */
    @Override
    public void allocation(long offset, long length, Extents out) {
        long end = offset + length;
        int n = devices.length;
        for (long pos = offset; pos < end && !out.stopped(); ) {
            long c = pos >>> chunkShift;
            long inChunk = pos & (chunk - 1);
            long len = Math.min(end - pos, chunk - inChunk);
            long row = c / n;
            int dev = (int) (c - row * n);
            devices[dev].allocation(offsets[dev] + (row << chunkShift) + inChunk, len, out);
            pos += len;
        }
    }

    @Override
    public boolean survives(MemberSet.Table table) {
        return Personality.everySlotInSync(table);
    }

    @Override
    public String mdstatGeometry() {
        return " " + chunk / 1024 + "k chunks";
    }

    @Override
    public long recordedDataBytes(Member m) {
        return memberBytes;
    }
}
