package io.blockwork.engine.block;

/** Whether a disk merges concurrent flush requests; the API names are {@code merged} and {@code off}. */
public enum FlushMerging {
    MERGED("merged"),
    OFF("off");

    private final String label;

    FlushMerging(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static FlushMerging fromLabel(String label) {
        for (FlushMerging m : values()) {
            if (m.label.equals(label)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown flush strategy '" + label + "' (merged, off)");
    }
}
