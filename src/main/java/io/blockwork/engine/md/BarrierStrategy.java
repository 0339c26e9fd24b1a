package io.blockwork.engine.md;

/**
 * How raid10's resync barrier admits normal I/O (ARCHITECTURE §5, seed 001). raid1 always uses its
 * bucketed barrier ({@link BucketBarrier}); the choice is recorded but has no effect there.
 */
public enum BarrierStrategy {
    /** Linux 6.1: a sequence read and an atomic pending count; no lock, no wake-up unless someone sleeps. */
    OPTIMISTIC("optimistic"),
    /** Before seed 001: every I/O takes the resync lock, and completions wake the wait queue. */
    LOCKED("locked");

    private final String label;

    BarrierStrategy(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static BarrierStrategy fromLabel(String text) {
        for (BarrierStrategy s : values()) {
            if (s.label.equals(text)) {
                return s;
            }
        }
        throw new MdArgumentException("strategies.barrier", "unknown barrier strategy '" + text + "' (optimistic, locked)");
    }
}
