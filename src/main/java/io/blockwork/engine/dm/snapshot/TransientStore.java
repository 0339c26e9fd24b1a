package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The transient store ({@code N}, the kernel's {@code dm-snap-transient.c}): COW chunks are handed
 * out from the start of the device, nothing is written but the data, and the exceptions live only
 * in the snapshot's tables. A commit is durable at once.
 */
public final class TransientStore implements ExceptionStore {

    private final BlockDevice cow;
    private final long chunkSectors;
    /**
     * Next free sector. Taken by compare-and-set: {@code fine} allocates from a transient store
     * without the allocation lock (nothing to keep in commit order), {@code global} under its lock.
     */
    private final AtomicLong nextFree = new AtomicLong();
    private final AtomicLong exceptions = new AtomicLong();

    public TransientStore(BlockDevice cow, long chunkSectors) {
        this.cow = cow;
        this.chunkSectors = chunkSectors;
    }

    @Override
    public StoreType type() {
        return StoreType.TRANSIENT;
    }

    @Override
    public long chunkSectors() {
        return chunkSectors;
    }

    @Override
    public long prepareException() {
        long size = cow.sizeBytes() >> 9;
        long at;
        do {
            at = nextFree.get();
            if (size < at + chunkSectors) {
                return NO_SPACE;
            }
        } while (!nextFree.compareAndSet(at, at + chunkSectors));
        return at / chunkSectors;
    }

    @Override
    public void commitException(long oldChunk, long newChunk, boolean valid, CommitDone done) {
        exceptions.incrementAndGet();
        done.committed(valid);
    }

    @Override
    public Usage usage() {
        return new Usage(nextFree.get(), cow.sizeBytes() >> 9, 0);
    }

    @Override
    public void dropSnapshot() {
        // nothing on disk to mark
    }

    @Override
    public MergeRun prepareMerge() {
        throw new UnsupportedOperationException("a transient snapshot cannot be merged");
    }

    @Override
    public void commitMerge(int count, Consumer<IoStatus> done) {
        throw new UnsupportedOperationException("a transient snapshot cannot be merged");
    }

    @Override
    public long exceptionCount() {
        return exceptions.get();
    }
}
