package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.copy.CopyTarget;
import io.blockwork.engine.copy.RegionCopier;
import java.util.List;
import java.util.function.Consumer;

/**
 * Copies chunks between devices for a snapshot: through a {@link RegionCopier} in the engine, by
 * hand in model-checking tests.
 */
interface ChunkCopier extends AutoCloseable {

    /** Copies {@code length} bytes; {@code done} hears true on success, on some other thread. */
    void copy(BlockDevice from, long fromOffset, BlockDevice to, long toOffset, long length, Consumer<Boolean> done);

    @Override
    void close();

    /**
     * Through several region copiers, each with its own thread: a copy goes to the copier its
     * source chunk ({@code fromOffset / chunkBytes}) picks, so one chunk's copies always queue on
     * the same thread, in order, while different chunks' copies and their completions (which run
     * on the copier's thread) spread over all of them.
     */
    static ChunkCopier pool(List<RegionCopier> copiers, long chunkBytes) {
        if (copiers.size() == 1) {
            return of(copiers.getFirst());
        }
        List<ChunkCopier> each = copiers.stream().map(ChunkCopier::of).toList();
        return new ChunkCopier() {
            @Override
            public void copy(BlockDevice from, long fromOffset, BlockDevice to, long toOffset, long length,
                             Consumer<Boolean> done) {
                each.get((int) Long.remainderUnsigned(fromOffset / chunkBytes, each.size()))
                        .copy(from, fromOffset, to, toOffset, length, done);
            }

            @Override
            public void close() {
                each.forEach(ChunkCopier::close);
            }
        };
    }

    /** Through a region copier (kcopyd), which this snapshot owns. */
    static ChunkCopier of(RegionCopier copier) {
        return new ChunkCopier() {
            @Override
            public void copy(BlockDevice from, long fromOffset, BlockDevice to, long toOffset, long length,
                             Consumer<Boolean> done) {
                copier.copy(from, fromOffset, List.of(new CopyTarget(to, toOffset)), length, r -> done.accept(r.ok()));
            }

            @Override
            public void close() {
                copier.close();
            }
        };
    }
}
