package io.blockwork.engine.dm.targets.logwrites;

import io.blockwork.engine.dm.targets.logwrites.LogFormat.Flag;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * One entry on its way into the log (the kernel's {@code pending_block}): its bytes as they will
 * lie on the log device, entry sector first and the data after it, built when the bio is mapped
 * (the data is copied then, since the caller may reuse its buffer once the write completed).
 * A flush also carries the completed writes it makes durable, taken from the target's unflushed
 * list when it was mapped.
 */
final class PendingBlock {

    final Set<Flag> flags;
    /** The entry sector, then the data (none for flushes, discards and marks). */
    final byte[] bytes;
    /** For a flush: the writes that completed before it was mapped, oldest first. */
    List<PendingBlock> covered = List.of();

    private PendingBlock(Set<Flag> flags, byte[] bytes) {
        this.flags = flags;
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
        byte[] bytes = new byte[sectorSize + (int) data.byteSize()];
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, 0, bytes, sectorSize, (int) data.byteSize());
        LogFormat.encodeEntry(bytes, offset / sectorSize, data.byteSize() / sectorSize, flags, null);
        return new PendingBlock(flags, bytes);
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

    private static PendingBlock header(Set<Flag> flags, long sector, long nrSectors, byte[] mark, int sectorSize) {
        byte[] bytes = new byte[sectorSize];
        LogFormat.encodeEntry(bytes, sector, nrSectors, flags, mark);
        return new PendingBlock(flags, bytes);
    }

    /** A flush, a FUA write or a mark: the super is rewritten once it is on the log device. */
    boolean barrier() {
        return flags.contains(Flag.FLUSH) || flags.contains(Flag.FUA) || flags.contains(Flag.MARK);
    }
}
