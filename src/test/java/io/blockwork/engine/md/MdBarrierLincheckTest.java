package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.block.Bio;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Model checks of the resync barriers: in every interleaving Lincheck explores, no I/O runs while
 * a resync window is open, a window opens only once admitted I/O has left, and parked bios are
 * resumed. A deliberately broken twin of the optimistic barrier, which skips the sequence re-check
 * after bumping pending, must be rejected. (Lost wake-ups are {@link MdBarrierWakeupTest}'s: Lincheck
 * models spurious wake-ups from park, so a missing unpark is invisible to it.)
 */
@Tag("model-checking")
class MdBarrierLincheckTest {

    static ModelCheckingOptions options() {
        return new ModelCheckingOptions().threads(2).actorsPerThread(1).actorsBefore(0).actorsAfter(0)
                .iterations(8).invocationsPerIteration(100);
    }

    /** What the harness needs of a barrier: the production ones and the broken twin both fit. */
    interface Gate {
        boolean enter(Bio bio);

        void exit(Bio bio);

        void raise(long offset);

        void lower(long offset);

        static Gate of(ResyncBarrier b) {
            return new Gate() {
                @Override public boolean enter(Bio bio) { return b.enter(bio); }
                @Override public void exit(Bio bio) { b.exit(bio); }
                @Override public void raise(long offset) { b.raise(offset); }
                @Override public void lower(long offset) { b.lower(offset); }
            };
        }
    }

    /**
     * Normal I/O and resync windows over one barrier. An I/O marks itself inside and checks that no
     * window is open; a window marks itself open and checks that nobody is inside. Run one at a
     * time both always answer true, so a false is a barrier letting them overlap. A parked bio
     * waits on its own thread until the barrier resumes it.
     */
    static final class Harness {
        private final Gate gate;
        private final AtomicInteger inside = new AtomicInteger();
        private volatile boolean window;

        Harness(Function<Consumer<Bio>, Gate> factory) {
            gate = factory.apply(bio -> ((Admission) bio.context()).admit());
        }

        boolean io() {
            Admission admission = new Admission();
            Bio bio = Bio.flush(b -> { });
            bio.context(admission);
            if (!gate.enter(bio)) {
                admission.await();
            }
            inside.incrementAndGet();
            boolean alone = !window;
            inside.decrementAndGet();
            gate.exit(bio);
            return alone;
        }

        boolean resync() {
            gate.raise(0);
            window = true;
            boolean alone = inside.get() == 0;
            window = false;
            gate.lower(0);
            return alone;
        }
    }

    /** A parked bio's submitter, waiting to be resumed. */
    static final class Admission {
        private final Thread thread = Thread.currentThread();
        private volatile boolean admitted;

        void admit() {
            admitted = true;
            LockSupport.unpark(thread);
        }

        void await() {
            while (!admitted) {
                LockSupport.park(this);
            }
        }
    }

    /** The operations Lincheck runs; subclasses pick the barrier. Resync windows come from one thread, as from the daemon. */
    public abstract static class Operations {
        private final Harness h;

        Operations(Function<Consumer<Bio>, Gate> barrier) {
            h = new Harness(barrier);
        }

        @Operation
        public boolean io() {
            return h.io();
        }

        @Operation(nonParallelGroup = "resync")
        public boolean resync() {
            return h.resync();
        }
    }

    public static class Optimistic extends Operations {
        public Optimistic() {
            super(r -> Gate.of(new OptimisticBarrier(r)));
        }
    }

    public static class Locked extends Operations {
        public Locked() {
            super(r -> Gate.of(new LockedBarrier(r)));
        }
    }

    public static class Buckets extends Operations {
        public Buckets() {
            super(r -> Gate.of(new BucketBarrier(r)));
        }
    }

    public static class NoRecheck extends Operations {
        public NoRecheck() {
            super(r -> new BrokenOptimisticBarrier(r, false, true));
        }
    }

    @Test
    void optimisticBarrierKeepsIoAndResyncApart() {
        LinChecker.check(Optimistic.class, options());
    }

    @Test
    void lockedBarrierKeepsIoAndResyncApart() {
        LinChecker.check(Locked.class, options());
    }

    @Test
    void bucketBarrierKeepsIoAndResyncApart() {
        LinChecker.check(Buckets.class, options());
    }

    @Test
    void aBarrierWithoutTheSequenceRecheckIsRejected() {
        assertThatThrownBy(() -> LinChecker.check(NoRecheck.class, options())).isInstanceOf(AssertionError.class)
                .hasMessageContaining("Invalid execution results");
    }
}
