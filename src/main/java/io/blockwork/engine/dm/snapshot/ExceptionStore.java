package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import java.util.function.Consumer;

/**
 * Where a snapshot keeps its exceptions (old chunk to COW chunk), behind the kernel's two-phase
 * API ({@code dm-exception-store.h}): {@link #prepareException} picks a COW chunk for a new
 * exception; once the chunk has been copied, {@link #commitException} records it and calls back
 * when the record is durable (at once for a transient store). Commits arrive in the order the
 * exceptions were prepared (the snapshot's commit sequencer sees to it), one at a time.
 *
 * <p>Merging (persistent only) walks the exceptions back from the newest: {@link #prepareMerge}
 * names the last run of consecutive ones, {@link #commitMerge} forgets it on disk.
 */
public sealed interface ExceptionStore permits TransientStore, PersistentStore {

    /** What {@link #prepareException} returns when the COW device is full. */
    long NO_SPACE = -1;

    /** The largest chunk: 16 MiB, what the region copier moves in one piece. */
    long MAX_CHUNK_SECTORS = 32768;

    /**
     * Checks a chunk size as the kernel's {@code dm_exception_store_set_chunk_size} does: a power
     * of two, a multiple of every device's logical block size, and not too large.
     */
    static void checkChunkSize(long sectors, BlockDevice... devices) throws SnapshotException {
        if (sectors <= 0 || Long.bitCount(sectors) != 1) {
            throw new SnapshotException("Chunk size is not a power of 2: " + sectors);
        }
        for (BlockDevice d : devices) {
            if ((sectors << 9) % d.limits().logicalBlockSize() != 0) {
                throw new SnapshotException("Chunk size is not a multiple of device blocksize: " + sectors
                        + " sectors on '" + d.name() + "' with " + d.limits().logicalBlockSize() + "-byte blocks");
            }
        }
        if (sectors > MAX_CHUNK_SECTORS) {
            throw new SnapshotException("Chunk size is too high: " + sectors + " sectors (at most " + MAX_CHUNK_SECTORS + ")");
        }
    }

    StoreType type();

    long chunkSectors();

    /**
     * Allocates the COW chunk for a new exception, or returns {@link #NO_SPACE}; never blocks. The
     * caller holds the snapshot's allocation lock (so calls never overlap), except on a transient
     * store, whose allocation is thread-safe and which {@code fine} calls without it.
     */
    long prepareException();

    /**
     * Records a prepared exception; {@code done} hears whether the store is still valid once the
     * record is durable. {@code valid == false} (the copy failed) invalidates the store. Never
     * blocks; {@code done} may run on this thread or later on another.
     */
    void commitException(long oldChunk, long newChunk, boolean valid, CommitDone done);

    /** Space used, as the status line reports it. */
    Usage usage();

    /** Invalidates the store (persistent: writes the header with {@code valid = 0}); never blocks. */
    void dropSnapshot();

    /** The newest run of consecutive exceptions, or {@link MergeRun#NONE} when none is left. */
    MergeRun prepareMerge();

    /** Forgets the {@code count} newest exceptions; {@code done} hears the status of the metadata write. */
    void commitMerge(int count, Consumer<IoStatus> done);

    /** Exceptions recorded and not merged away. */
    long exceptionCount();

    /** The outcome of one commit. */
    @FunctionalInterface
    interface CommitDone {
        void committed(boolean valid);
    }

    /**
     * Space accounting in sectors, as {@code dmsetup status} prints it.
     *
     * @param allocatedSectors chunks handed out so far, times the chunk size (header and metadata included)
     * @param totalSectors the COW device's size
     * @param metadataSectors header and metadata areas in use (0 for a transient store)
     */
    record Usage(long allocatedSectors, long totalSectors, long metadataSectors) {}

    /**
     * A run of {@code count} exceptions whose old and new chunks both ascend by one, ending at
     * {@code lastOld}/{@code lastNew}.
     */
    record MergeRun(long lastOld, long lastNew, int count) {
        public static final MergeRun NONE = new MergeRun(0, 0, 0);

        public long firstOld() {
            return lastOld + 1 - count;
        }

        public long firstNew() {
            return lastNew + 1 - count;
        }
    }
}
