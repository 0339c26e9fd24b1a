package io.blockwork.engine.disk;

/** Whether a disk has a volatile write cache. */
public enum CacheMode {
    /** Every completed write is durable; flushes complete at once. The default. */
    WRITETHROUGH("writethrough"),
    /** Completed writes sit in a volatile cache until a flush or FUA makes them durable. */
    WRITEBACK("writeback");

    private final String label;

    CacheMode(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static CacheMode fromLabel(String label) {
        for (CacheMode m : values()) {
            if (m.label.equals(label)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown cache mode '" + label + "' (writethrough, writeback)");
    }
}
