package io.blockwork.engine.dm.snapshot;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.block.Bio;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 4: model checks the exception tables and the pending-exception path with the real
 * {@link Snapshot} code (its origin-write step, reads, completions), one-sector chunks on
 * {@link ChunkDevice}s, and copies that run only when an operation says so (reading the origin
 * then, the worst moment).
 *
 * <p>Operations: an origin write of 1 to chunk 0 (initially 0), a snapshot read of chunk 0, a
 * "copier" that completes every started copy, and a count of copies started. Run one at a time,
 * any order of these gives: at most one copy ever, and a snapshot read that returns 0, the
 * content when the snapshot was taken. Lincheck looks for an interleaving whose results no
 * sequential order explains: two racing writers that both copy the chunk, or a snapshot read
 * during a pending copy that sees a new value. {@code fine} and {@code global} must pass; a twin
 * that takes only the state lock in the I/O paths (no bucket locks: "the rw lock's read side
 * protects the tables") must be rejected.
 */
@Tag("model-checking")
public class PendingExceptionLincheckTest {

    /**
     * Two scenarios, each explored in many interleavings: two origin writers racing on one chunk
     * (then count the copies), and a snapshot read racing the completion of a pending copy that an
     * earlier origin write started (then read again).
     */
    static ModelCheckingOptions options(Class<? extends Model> test) {
        Actor write = actor(test, "originWrite");
        Actor read = actor(test, "snapshotRead");
        Actor copier = actor(test, "completeCopies");
        Actor count = actor(test, "copiesStarted");
        return new ModelCheckingOptions().iterations(0).invocationsPerIteration(60)
                .addCustomScenario(new ExecutionScenario(List.of(), List.of(List.of(write), List.of(write)),
                        List.of(count), null))
                .addCustomScenario(new ExecutionScenario(List.of(write), List.of(List.of(read), List.of(copier)),
                        List.of(read, count), null));
    }

    private static Actor actor(Class<?> test, String operation) {
        try {
            return new Actor(test.getMethod(operation), List.of());
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The snapshot under test and its two devices; copies wait in {@link #copies} until {@link #completeCopies}. */
    abstract static class Model {
        private record Copy(long from, long to, java.util.function.Consumer<Boolean> done) {}

        private final ChunkDevice originDev = new ChunkDevice("origin", 4);
        private final ChunkDevice cowDev = new ChunkDevice("cow", 8);
        private final ConcurrentLinkedQueue<Copy> copies = new ConcurrentLinkedQueue<>();
        private final AtomicInteger copiesStarted = new AtomicInteger();
        private final Snapshot snapshot;

        Model(SnapshotLocking.Factory locking) {
            ChunkCopier copier = new ChunkCopier() {
                @Override
                public void copy(io.blockwork.engine.block.BlockDevice from, long fromOffset,
                                 io.blockwork.engine.block.BlockDevice to, long toOffset, long length,
                                 java.util.function.Consumer<Boolean> done) {
                    copiesStarted.incrementAndGet();
                    copies.add(new Copy(fromOffset >> 9, toOffset >> 9, done));
                }

                @Override
                public void close() {}
            };
            snapshot = new Snapshot(originDev, cowDev, new TransientStore(cowDev, 1), true, new long[0], 0,
                    locking, 0, copier);
            snapshot.activate();
        }

        /**
         * An origin write of 1 to chunk 0, as {@link Origin#write} makes it for one
         * snapshot (without the registry's lock, which is not under test here): it goes to the
         * origin once the snapshot holds the chunk, else waits on the pending exception and is
         * tried again when that completes.
         */
        @Operation
        public void originWrite() {
            if (snapshot.originWrite(0, 512, this::originWrite) != null) {
                originDev.values.set(0, 1);
            }
        }

        @Operation
        public int snapshotRead() {
            MemorySegment data = MemorySegment.ofArray(new byte[512]);
            Bio bio = Bio.read(0, data, b -> { });
            switch (snapshot.read(bio)) {
                case Route.ToCow c -> cowDev.submit(bio.remap(c.offset()));
                case Route.ToOrigin o -> originDev.submit(bio.remap(o.offset()));
                default -> throw new IllegalStateException("a read is never held or failed here");
            }
            snapshot.endIo(bio);
            bio.endio();
            return data.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
        }

        /** kcopyd's worker: performs every started copy now and reports it. */
        @Operation
        public void completeCopies() {
            List<Copy> now = new ArrayList<>();
            Copy c;
            while ((c = copies.poll()) != null) {
                now.add(c);
            }
            for (Copy copy : now) {
                cowDev.values.set((int) copy.to, originDev.values.get((int) copy.from));
                copy.done.accept(true);
            }
        }

        @Operation
        public int copiesStarted() {
            return copiesStarted.get();
        }
    }

    public static class Fine extends Model {
        public Fine() {
            super(SnapshotLocking.Kind.FINE);
        }
    }

    public static class Global extends Model {
        public Global() {
            super(SnapshotLocking.Kind.GLOBAL);
        }
    }

    /** Deliberately broken: the I/O paths take the state lock shared and no bucket lock. */
    public static class StateLockOnly extends Model {
        public StateLockOnly() {
            super((completeBuckets, pendingBuckets) -> new StateLockOnlyLocking());
        }
    }

    static final class StateLockOnlyLocking implements SnapshotLocking {
        private final ReentrantReadWriteLock state = new ReentrantReadWriteLock();
        private final ReentrantLock allocation = new ReentrantLock();

        @Override public Kind kind() { return null; }
        @Override public void lockChunk(int cb) { state.readLock().lock(); }
        @Override public void unlockChunk(int cb) { state.readLock().unlock(); }
        @Override public void lockAllocation() { allocation.lock(); }
        @Override public void unlockAllocation() { allocation.unlock(); }
        @Override public void lockState() { state.writeLock().lock(); }
        @Override public void unlockState() { state.writeLock().unlock(); }
    }

    @Test
    void fineLockingMakesOneCopyAndKeepsTheOldData() {
        LinChecker.check(Fine.class, options(Fine.class));
    }

    @Test
    void globalLockingMakesOneCopyAndKeepsTheOldData() {
        LinChecker.check(Global.class, options(Global.class));
    }

    @Test
    void tablesWithoutBucketLocksAreRejected() {
        assertThatThrownBy(() -> LinChecker.check(StateLockOnly.class, options(StateLockOnly.class)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Invalid execution results");
    }
}
