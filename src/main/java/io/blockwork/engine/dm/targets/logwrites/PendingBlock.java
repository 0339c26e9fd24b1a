package io.blockwork.engine.dm.targets.logwrites;

import io.blockwork.engine.dm.targets.logwrites.LogFormat.Flag;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * One entry on its way into the log (the kernel's {@code pending_block}): its bytes as they will
 * lie on the log device, entry sector first and the data after it, built when the bio is mapped
 * (the data is copied then, since the caller may reuse its buffer once the write completed).
 * A flush also carries the completed writes it makes durable, taken from the target's unflushed
 * list when it was mapped. Sectors are in the log's sector size.
 */
final class PendingBlock {

    final Set<Flag> flags;
    final long sector;
    final long sectors;
    final int sectorSize;
    /** The entry sector, then the data (none for flushes, discards and marks). */
    final byte[] bytes;
    /** For a flush: the writes that completed before it was mapped, oldest first. */
    List<PendingBlock> covered = List.of();

    private PendingBlock(Set<Flag> flags, long sector, long sectors, int sectorSize, byte[] bytes) {
        this.flags = flags;
        this.sector = sector;
        this.sectors = sectors;
        this.sectorSize = sectorSize;
        this.bytes = bytes;
    }

    /** A write of {@code data} at byte {@code offset} of the logged device. */
    static PendingBlock write(long offset, MemorySegment data, boolean fua, boolean preflush, int sectorSize) {
        Set<Flag> flags = EnumSet.noneOf(Flag.class);
        if (preflush) {
            flags.add(Flag.FLUSH);
        }
        if (fua) {
            flags.add(Flag.FUA);
        }
        return write(flags, offset / sectorSize, data, sectorSize);
    }

    private static PendingBlock write(Set<Flag> flags, long sector, MemorySegment data, int sectorSize) {
        byte[] bytes = new byte[sectorSize + (int) data.byteSize()];
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, 0, bytes, sectorSize, (int) data.byteSize());
        long sectors = data.byteSize() / sectorSize;
        LogFormat.encodeEntry(bytes, sector, sectors, flags, null);
        return new PendingBlock(flags, sector, sectors, sectorSize, bytes);
    }

    /** A discard (or write-zeroes) of {@code length} bytes at {@code offset}: no data is logged. */
    static PendingBlock discard(long offset, long length, int sectorSize) {
        return header(EnumSet.of(Flag.DISCARD), offset / sectorSize, length / sectorSize, null, sectorSize);
    }

    static PendingBlock flush(int sectorSize) {
        return header(EnumSet.of(Flag.FLUSH), 0, 0, null, sectorSize);
    }

    static PendingBlock mark(String name, int sectorSize) {
        return header(EnumSet.of(Flag.MARK), 0, 0, LogFormat.markName(name, sectorSize), sectorSize);
    }

    private static PendingBlock header(Set<Flag> flags, long sector, long sectors, byte[] mark, int sectorSize) {
        byte[] bytes = new byte[sectorSize];
        LogFormat.encodeEntry(bytes, sector, sectors, flags, mark);
        return new PendingBlock(flags, sector, sectors, sectorSize, bytes);
    }

    /** A flush, a FUA write or a mark: the super is rewritten once it is on the log device. */
    boolean barrier() {
        return flags.contains(Flag.FLUSH) || flags.contains(Flag.FUA) || flags.contains(Flag.MARK);
    }

    boolean overlaps(PendingBlock other) {
        return sectors > 0 && other.sectors > 0 && sector < other.sector + other.sectors && other.sector < sector + sectors;
    }

    /**
     * What is left of this unflushed write or discard once {@code newer} (a FUA write that
     * completed after it) has overwritten part of it: nothing, one piece or two.
     */
    List<PendingBlock> without(PendingBlock newer) {
        List<PendingBlock> left = new ArrayList<>(2);
        if (newer.sector > sector) {
            left.add(piece(sector, newer.sector - sector));
        }
        long end = sector + sectors;
        long newerEnd = newer.sector + newer.sectors;
        if (newerEnd < end) {
            left.add(piece(newerEnd, end - newerEnd));
        }
        return left;
    }

    private PendingBlock piece(long from, long count) {
        if (flags.contains(Flag.DISCARD)) {
            return header(flags, from, count, null, sectorSize);
        }
        MemorySegment data = MemorySegment.ofArray(bytes).asSlice((1 + from - sector) * sectorSize, count * sectorSize);
        return write(flags, from, data, sectorSize);
    }
}
