package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.copy.CopyTarget;
import io.blockwork.engine.copy.RegionCopier;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.Consumer;

/**
 * Copies chunks between devices for a snapshot: in the engine, an exception's chunk through the
 * bios' own completions and a merge's runs through a {@link RegionCopier}; by hand in
 * model-checking tests.
 */
interface ChunkCopier extends AutoCloseable {

    /** Copies {@code length} bytes; {@code done} hears true on success, on some other thread. */
    void copy(BlockDevice from, long fromOffset, BlockDevice to, long toOffset, long length, Consumer<Boolean> done);

    /**
     * Copies one exception's chunk ({@code length} at most a chunk) for an origin or snapshot
     * write; {@code done} may run on any thread, the caller's included. By default as {@link #copy}.
     */
    default void copyChunk(BlockDevice from, long fromOffset, BlockDevice to, long toOffset, long length,
                           Consumer<Boolean> done) {
        copy(from, fromOffset, to, toOffset, length, done);
    }

    @Override
    void close();

    /**
     * The engine's copier, the same for both locking strategies. An exception's chunk is copied
     * without a thread of its own: the read is submitted on the calling thread, the write from the
     * read's completion, and {@code done} runs in the write's completion. Issue 20's profile found
     * the kcopyd-style thread doing every copy, completion and released write, two wake-ups per
     * origin write, and most of the CPU; here a copy costs no hand-off, and on devices that complete
     * at once the copy and the completion it drives run on the writer's own thread ({@link CopyStarts}
     * keeps such copies from nesting on its stack, and their buffers for the thread's next copies). A merge's runs
     * (many chunks, then a flush and a commit, then the next run) still go through the
     * {@link RegionCopier} {@code runs}, whose thread keeps that chain off the callers' stacks.
     */
    static ChunkCopier direct(RegionCopier runs) {
        ChunkCopier threaded = of(runs);
        return new ChunkCopier() {
            @Override
            public void copy(BlockDevice from, long fromOffset, BlockDevice to, long toOffset, long length,
                             Consumer<Boolean> done) {
                threaded.copy(from, fromOffset, to, toOffset, length, done);
            }

            @Override
            public void copyChunk(BlockDevice from, long fromOffset, BlockDevice to, long toOffset, long length,
                                  Consumer<Boolean> done) {
                CopyStarts.run(starts -> {
                    MemorySegment buffer = starts.buffer(Math.toIntExact(length));
                    from.submit(Bio.read(fromOffset, buffer, r -> {
                        if (!r.status().ok()) {
                            starts.recycle(buffer);
                            done.accept(false);
                            return;
                        }
                        to.submit(Bio.write(toOffset, buffer, BioFlags.NONE, w -> {
                            starts.recycle(buffer);
                            done.accept(w.status().ok());
                        }));
                    }));
                });
            }

            @Override
            public void close() {
                threaded.close();
            }
        };
    }

    /** Everything through a region copier (kcopyd), which this snapshot owns. */
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
