package io.blockwork.service.disk;

import java.util.Arrays;
import java.util.Optional;

/** What a disk stores its bytes in, and whether they outlive the service. */
public enum DiskType {
    /** Sparse RAM: grows with data written, comes back empty after a restart. */
    MEMORY("memory", false),
    /** A sparse file under the data dir; keeps its data. */
    FILE("file", true),
    /** null_blk: writes vanish, reads return zeros. */
    NULL("null", false);

    private final String label;
    private final boolean keepsData;

    DiskType(String label, boolean keepsData) {
        this.label = label;
        this.keepsData = keepsData;
    }

    public String label() {
        return label;
    }

    /** True if the disk's contents survive a restart of the service. */
    public boolean keepsData() {
        return keepsData;
    }

    public static Optional<DiskType> fromLabel(String label) {
        return Arrays.stream(values()).filter(t -> t.label.equals(label)).findFirst();
    }
}
