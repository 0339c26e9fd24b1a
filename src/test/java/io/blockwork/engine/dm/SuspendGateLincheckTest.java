package io.blockwork.engine.dm;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Model checks the suspend gate: whatever the interleaving, no I/O is mapped while the device is
 * suspended. A mapped device is reduced to the gate plus a "suspended" flag that the suspender
 * sets once the gate drained; {@code io()} reports whether it mapped while that flag was set,
 * which no sequential execution can produce. The same check must reject a gate that reads the
 * flag before taking its ticket.
 */
@Tag("model-checking")
public class SuspendGateLincheckTest {

    static ModelCheckingOptions options() {
        return new ModelCheckingOptions().threads(2).actorsPerThread(2).iterations(6).invocationsPerIteration(200);
    }

    /** What the model needs of a gate. */
    interface Gate {
        boolean tryEnter();

        void exit();

        void block();

        void awaitDrained() throws InterruptedException;

        void unblock();
    }

    /** The model device; {@code Gate} supplies the protocol under test. */
    abstract static class Model {
        private final Gate gate;
        private volatile boolean suspended;

        Model(Gate gate) {
            this.gate = gate;
        }

        /** Submits one I/O: held (fine) or mapped; false if it was mapped while suspended. */
        @Operation
        public boolean io() {
            if (!gate.tryEnter()) {
                return true; // held for resume
            }
            try {
                return !suspended;
            } finally {
                gate.exit();
            }
        }

        /** Suspends (drains the gate), then resumes; one suspender at a time, as the control lock ensures. */
        @Operation(nonParallelGroup = "suspender")
        public boolean suspendResume() throws InterruptedException {
            gate.block();
            gate.awaitDrained();
            suspended = true;
            suspended = false;
            gate.unblock();
            return true;
        }
    }

    /** The real gate. */
    public static class RealGate extends Model {
        public RealGate() {
            super(new Gate() {
                private final IoGate<Object> g = new IoGate<>();

                @Override public boolean tryEnter() { return g.tryEnter(); }
                @Override public void exit() { g.exit(); }
                @Override public void block() { g.block(); }
                @Override public void awaitDrained() throws InterruptedException { g.awaitDrained(Long.MAX_VALUE); }
                @Override public void unblock() { g.unblock(); }
            });
        }
    }

    /** Deliberately broken: reads the flag first and counts after, so a suspender can miss it. */
    public static class CheckThenCountGate extends Model {
        public CheckThenCountGate() {
            super(new Gate() {
                private final AtomicLong count = new AtomicLong();
                private volatile boolean blocked;

                @Override
                public boolean tryEnter() {
                    if (blocked) {
                        return false;
                    }
                    count.incrementAndGet();
                    return true;
                }

                @Override public void exit() { count.decrementAndGet(); }
                @Override public void block() { blocked = true; }

                @Override
                public void awaitDrained() {
                    while (count.get() != 0) {
                        Thread.onSpinWait();
                    }
                }

                @Override public void unblock() { blocked = false; }
            });
        }
    }

    @Test
    void theGateNeverLetsIoThroughBehindASuspend() {
        LinChecker.check(RealGate.class, options());
    }

    @Test
    void aGateThatChecksBeforeCountingIsRejected() {
        assertThatThrownBy(() -> LinChecker.check(CheckThenCountGate.class, options()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Invalid execution results");
    }
}
