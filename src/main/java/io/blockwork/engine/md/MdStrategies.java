package io.blockwork.engine.md;

import java.util.Objects;

/** The seeds' strategies an array runs with, fixed at creation. */
public record MdStrategies(FlushStrategy flush, BarrierStrategy barrier) {

    public static final MdStrategies DEFAULT = new MdStrategies(FlushStrategy.FANOUT, BarrierStrategy.OPTIMISTIC);

    public MdStrategies {
        Objects.requireNonNull(flush, "flush");
        Objects.requireNonNull(barrier, "barrier");
    }

    /** From the API's labels; a null label means the default. */
    public static MdStrategies of(String flush, String barrier) {
        return new MdStrategies(flush == null ? DEFAULT.flush : FlushStrategy.fromLabel(flush),
                barrier == null ? DEFAULT.barrier : BarrierStrategy.fromLabel(barrier));
    }

    public MdStrategies withFlush(FlushStrategy f) {
        return new MdStrategies(f, barrier);
    }

    public MdStrategies withBarrier(BarrierStrategy b) {
        return new MdStrategies(flush, b);
    }
}
