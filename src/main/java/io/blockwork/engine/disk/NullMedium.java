package io.blockwork.engine.disk;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Extents;
import java.lang.foreign.MemorySegment;

/** null_blk: writes vanish, reads return zeros, nothing is stored. */
public final class NullMedium implements Medium {
    private final long size;

    public NullMedium(long sizeBytes) {
        this.size = sizeBytes;
    }

    @Override
    public long sizeBytes() {
        return size;
    }

    @Override
    public void read(long offset, MemorySegment into) {
        into.fill((byte) 0);
    }

    @Override
    public void write(long offset, MemorySegment from, boolean durable) {
        // discarded
    }

    @Override
    public void discard(long offset, long length) {
        // nothing stored
    }

    @Override
    public void writeZeroes(long offset, long length) {
        // nothing stored
    }

    @Override
    public void allocation(long offset, long length, Extents out) {
        out.add(length, Allocation.HOLE);
    }

    @Override
    public void flush() {
        // nothing cached
    }

    @Override
    public boolean nativeFua() {
        return true;
    }

    @Override
    public boolean blocking() {
        return false;
    }

    @Override
    public long allocatedBytes() {
        return 0;
    }

    @Override
    public boolean persistent() {
        return false;
    }

    @Override
    public void close() {
        // nothing held
    }
}
