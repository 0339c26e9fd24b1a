package io.blockwork.engine.disk;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Extents;
import java.lang.foreign.MemorySegment;

/**
 * Where a {@link Disk} keeps its bytes. Operations are synchronous and take byte ranges already
 * checked against the disk's size and block size. A medium that may block ({@link #blocking()})
 * is driven from a worker, never from the submitting thread.
 *
 * <p>Implementations: {@link MemoryMedium}, {@link FileMedium}, {@link NullMedium}.
 */
public interface Medium extends AutoCloseable {

    long sizeBytes();

    void read(long offset, MemorySegment into);

    /** Writes {@code from}; with {@code durable} the bytes are durable on return (native FUA). */
    void write(long offset, MemorySegment from, boolean durable);

    /** Drops the range's contents; reads return zeros afterwards. */
    void discard(long offset, long length);

    void writeZeroes(long offset, long length);

    /**
     * What the range holds (see {@link io.blockwork.engine.block.BlockDevice#allocation}); the
     * default cannot tell and reports data.
     */
    default void allocation(long offset, long length, Extents out) {
        out.add(length, Allocation.DATA);
    }

    /** Makes every write that returned before this call durable. */
    void flush();

    /** Drops every write that is not durable. */
    default void powerCut() {
        throw new UnsupportedOperationException("this medium does not model a power cut");
    }

    /** True if {@link #write} can make data durable itself; else the disk emulates FUA with a flush. */
    boolean nativeFua();

    /** True if operations may block the calling thread (file I/O). */
    boolean blocking();

    /** Bytes of memory or storage the medium holds for data written so far. */
    long allocatedBytes();

    /** True if the contents survive a restart of the service. */
    boolean persistent();

    @Override
    void close();
}
