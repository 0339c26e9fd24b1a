package io.blockwork.dm.app;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.EmptyFlush;
import io.blockwork.engine.dm.snapshot.SnapshotLocking;

/**
 * A mapped device's selectable mechanisms, each the fix of a seed or the behaviour before it,
 * chosen at creation and kept for the device's life.
 *
 * @param emptyFlush {@code per-device} (default) or {@code per-target} (seed 002)
 * @param batchDispatch how its mirror targets release batches: {@code explicit} (default) or
 *        {@code timer} (seed 003)
 * @param snapshotLocking how its snapshot targets lock: {@code fine} (default) or {@code global}
 *        (seed 004)
 */
public record DmStrategies(EmptyFlush emptyFlush, BatchDispatch.Kind batchDispatch,
                           SnapshotLocking.Kind snapshotLocking) {

    public static final DmStrategies DEFAULTS =
            new DmStrategies(EmptyFlush.PER_DEVICE, BatchDispatch.Kind.EXPLICIT, SnapshotLocking.Kind.FINE);

    /** A null component takes its default. */
    public DmStrategies {
        emptyFlush = emptyFlush == null ? EmptyFlush.PER_DEVICE : emptyFlush;
        batchDispatch = batchDispatch == null ? BatchDispatch.Kind.EXPLICIT : batchDispatch;
        snapshotLocking = snapshotLocking == null ? SnapshotLocking.Kind.FINE : snapshotLocking;
    }

    /** {@code base} with these choices. */
    DmConfig applyTo(DmConfig base) {
        return base.withEmptyFlush(emptyFlush).withBatchDispatch(batchDispatch).withSnapshotLocking(snapshotLocking);
    }
}
