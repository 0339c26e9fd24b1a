package io.blockwork.engine.block;

/**
 * What a device accepts, as the kernel's queue_limits.
 *
 * @param logicalBlockSize smallest addressable unit; offsets and lengths are multiples of it
 * @param physicalBlockSize the unit the device writes atomically (never torn inside it)
 * @param maxIoBytes largest READ or WRITE the device takes in one piece; larger ones are split
 * @param boundaryBytes a bio never crosses a multiple of this (a stripe chunk); 0 for none
 */
public record DeviceLimits(int logicalBlockSize, int physicalBlockSize, long maxIoBytes, long boundaryBytes) {

    public static final int SECTOR = 512;
    public static final long DEFAULT_MAX_IO = 1L << 20;

    public DeviceLimits {
        if (logicalBlockSize < SECTOR || Integer.bitCount(logicalBlockSize) != 1) {
            throw new IllegalArgumentException("logical block size must be a power of two >= 512: " + logicalBlockSize);
        }
        if (physicalBlockSize < logicalBlockSize || Integer.bitCount(physicalBlockSize) != 1) {
            throw new IllegalArgumentException("physical block size must be a power of two >= logical: " + physicalBlockSize);
        }
        if (maxIoBytes < logicalBlockSize || maxIoBytes % logicalBlockSize != 0) {
            throw new IllegalArgumentException("max I/O must be a multiple of the logical block size: " + maxIoBytes);
        }
        if (boundaryBytes < 0 || boundaryBytes % logicalBlockSize != 0) {
            throw new IllegalArgumentException("boundary must be a multiple of the logical block size: " + boundaryBytes);
        }
    }

    public static DeviceLimits of(int logicalBlockSize) {
        return new DeviceLimits(logicalBlockSize, Math.max(logicalBlockSize, 4096), DEFAULT_MAX_IO, 0);
    }

    public DeviceLimits withBoundary(long boundary) {
        return new DeviceLimits(logicalBlockSize, physicalBlockSize, maxIoBytes, boundary);
    }

    public DeviceLimits withMaxIo(long maxIo) {
        return new DeviceLimits(logicalBlockSize, physicalBlockSize, maxIo, boundaryBytes);
    }

    /**
     * The limits of a device stacked on one with {@code lower} limits (blk_stack_limits): the larger
     * block sizes, the smaller max I/O. Boundaries are not inherited: a stacked device splits for
     * its own layout and the lower device splits again for its own.
     */
    public DeviceLimits stack(DeviceLimits lower) {
        return new DeviceLimits(
                Math.max(logicalBlockSize, lower.logicalBlockSize),
                Math.max(physicalBlockSize, lower.physicalBlockSize),
                Math.max(Math.max(logicalBlockSize, lower.logicalBlockSize),
                        Math.min(maxIoBytes, lower.maxIoBytes)),
                boundaryBytes);
    }

    /** Bytes a bio starting at {@code offset} may cover before it must be split. */
    public long maxBytesAt(long offset) {
        if (boundaryBytes == 0) {
            return maxIoBytes;
        }
        return Math.min(maxIoBytes, boundaryBytes - offset % boundaryBytes);
    }
}
