package io.blockwork.engine.block;

/** Whether a disk merges concurrent flush requests; the API names are {@code merged} and {@code off}. */
public enum FlushMerging implements Labelled {
    MERGED,
    OFF;

    public static FlushMerging fromLabel(String label) {
        return Labelled.parse(FlushMerging.class, label, "flush strategy");
    }
}
