package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.BlockDevice;
import java.util.Objects;

/**
 * A snapshot as a table line describes it, in plain values.
 *
 * @param origin the origin device whose past the snapshot keeps (the device under the origin target)
 * @param cow the exception store's device
 * @param store N, P or PO
 * @param chunkSectors copy-on-write unit in sectors; 0 for a persistent store means "the header's"
 * @param merge true for a {@code snapshot-merge} target
 */
public record SnapshotSpec(BlockDevice origin, BlockDevice cow, StoreType store, long chunkSectors, boolean merge) {
    public SnapshotSpec {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(cow, "cow");
        Objects.requireNonNull(store, "store");
    }
}
