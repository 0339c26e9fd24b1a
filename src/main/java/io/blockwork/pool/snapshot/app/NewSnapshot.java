package io.blockwork.pool.snapshot.app;

import io.blockwork.shared.problem.Differences;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.pool.volume.app.VolumeService;

/**
 * A snapshot to take, as the API gives it.
 *
 * @param sizeBytes its copy-on-write space, rounded up to whole extents of the pool
 * @param chunkBytes the copy-on-write unit; null for {@link #DEFAULT_CHUNK_BYTES}
 * @param persistent null or true for a persistent exception store (survives restarts), false for a transient one
 */
public record NewSnapshot(String name, Long sizeBytes, Long chunkBytes, Boolean persistent) {

    public static final long DEFAULT_CHUNK_BYTES = 4096;
    public static final long MIN_CHUNK_BYTES = 4096;
    public static final long MAX_CHUNK_BYTES = 512 * 1024;

    /**
     * How COW snapshot {@code is} differs from this request (docs/api.md, scripting contract). A
     * repeat is checked as the create is: without a valid size it is refused at "size".
     */
    public Differences differencesFrom(SnapshotView is) {
        return Differences.of("snapshot", name).size("size", checkedSize(), is.sizeBytes(), is.extentCount() == 0 ? 0 : is.sizeBytes() / is.extentCount())
                .field("chunkSize", chunkBytes == null ? DEFAULT_CHUNK_BYTES : chunkBytes, is.chunkSizeBytes())
                .field("persistent", persistent == null || persistent, is.persistent());
    }

    /** The COW space in bytes, or validation-failed at "size". */
    long checkedSize() {
        if (sizeBytes == null) {
            throw ProblemException.invalid("size", "the snapshot's copy-on-write space is required");
        }
        if (sizeBytes <= 0 || sizeBytes % VolumeService.SECTOR != 0) {
            throw ProblemException.invalid("size", "the copy-on-write space is a positive whole number of 512-byte"
                    + " sectors, not " + sizeBytes + " bytes");
        }
        return sizeBytes;
    }

    /** The chunk size in sectors, or validation-failed at "chunkSize". */
    long chunkSectors() {
        long b = chunkBytes == null ? DEFAULT_CHUNK_BYTES : chunkBytes;
        if (b < MIN_CHUNK_BYTES || b > MAX_CHUNK_BYTES || Long.bitCount(b) != 1) {
            throw ProblemException.invalid("chunkSize", "the chunk size is a power of two from 4 KiB to 512 KiB, not "
                    + b + " bytes").with("chunkSizeBytes", b);
        }
        return b >> 9;
    }
}
