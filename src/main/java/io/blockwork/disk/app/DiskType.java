package io.blockwork.disk.app;

import io.blockwork.engine.block.Labelled;
import java.util.Optional;

/** What a disk stores its bytes in, and whether they outlive the service. */
public enum DiskType implements Labelled {
    /** Sparse RAM: grows with data written, comes back empty after a restart. */
    MEMORY(false),
    /** A sparse file under the data dir; keeps its data. */
    FILE(true),
    /** null_blk: writes vanish, reads return zeros. */
    NULL(false),
    /** An export of an NBD server (another Blockwork, nbdkit, qemu-storage-daemon): the server keeps it. */
    NBD(true);

    private final boolean keepsData;

    DiskType(boolean keepsData) {
        this.keepsData = keepsData;
    }

    /** True if the disk's contents survive a restart of the service. */
    public boolean keepsData() {
        return keepsData;
    }

    public static Optional<DiskType> fromLabel(String label) {
        return Labelled.find(DiskType.class, label);
    }
}
