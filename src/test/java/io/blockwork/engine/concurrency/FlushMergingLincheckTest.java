package io.blockwork.engine.concurrency;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.block.SerialFlusher;
import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Model checks the flush-merging state machine: whatever the interleaving, a flush that returns
 * has made its own earlier write durable. The same check must reject {@link PiggybackFlusher}.
 */
@Tag("model-checking")
public class FlushMergingLincheckTest {

    /**
     * Scenarios per check: 5 in {@code verify} (the broken twin is caught within the first two;
     * 10 took 53 s of CI's 30 minutes), more with {@code -Dblockwork.lincheck.iterations=N}.
     */
    private static final int ITERATIONS = Integer.getInteger("blockwork.lincheck.iterations", 5);

    static ModelCheckingOptions options() {
        return new ModelCheckingOptions().threads(3).actorsPerThread(1).iterations(ITERATIONS).invocationsPerIteration(300);
    }

    /** The real strategy. */
    public static class Merging {
        private final FlushModel model = new FlushModel(media -> new SerialFlusher(media, FlushMerging.MERGED));

        @Operation
        public boolean writeThenFlush() {
            return model.writeThenFlush();
        }
    }

    /** The real strategy, with media flushes that end on another thread than the one that started them. */
    public static class DeferredMerging {
        private final FlushModel model = FlushModel.deferred(media -> new SerialFlusher(media, FlushMerging.MERGED));

        @Operation
        public boolean writeThenFlush() {
            return model.writeThenFlush();
        }
    }

    /** The broken one. */
    public static class Piggyback {
        private final FlushModel model = new FlushModel(PiggybackFlusher::new);

        @Operation
        public boolean writeThenFlush() {
            return model.writeThenFlush();
        }
    }

    @Test
    void mergingFlusherKeepsTheContract() {
        LinChecker.check(Merging.class, options());
    }

    @Test
    void mergingFlusherKeepsTheContractWhenFlushesEndElsewhere() {
        LinChecker.check(DeferredMerging.class, options().iterations(Math.max(1, ITERATIONS / 2)));
    }

    @Test
    void piggybackFlusherIsRejected() {
        assertThatThrownBy(() -> LinChecker.check(Piggyback.class, options())).isInstanceOf(AssertionError.class)
                .hasMessageContaining("Invalid execution results");
    }
}
