package io.blockwork.engine.dm.thin;

/** How much a pool may still do, in degrading order (the kernel's {@code enum pool_mode}). */
public enum PoolMode {
    /** Metadata may change. */
    WRITE("rw"),
    /** Metadata may change, but no data block can be allocated: writes needing one queue or fail. */
    OUT_OF_DATA_SPACE("out_of_data_space"),
    /** Like read-only, until the metadata device grows (reported as {@code ro}). */
    OUT_OF_METADATA_SPACE("ro"),
    /** No metadata changes: reads and writes to blocks already mapped and unshared only. */
    READ_ONLY("ro"),
    /** Every I/O fails; the metadata needs checking. */
    FAIL("Fail");

    private final String label;

    PoolMode(String label) {
        this.label = label;
    }

    /** The status line's word. */
    public String label() {
        return label;
    }

    /** True if metadata may not change in this mode. */
    public boolean readOnly() {
        return compareTo(OUT_OF_METADATA_SPACE) >= 0;
    }
}
