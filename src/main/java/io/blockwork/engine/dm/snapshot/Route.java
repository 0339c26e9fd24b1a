package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.IoStatus;

/**
 * Where a snapshot or origin sends one bio (a target turns this into its map result): on to the
 * COW or the origin device at a byte offset, kept by the snapshot until an exception completes
 * (the snapshot ends it), or failed.
 */
public sealed interface Route {

    record ToCow(long offset) implements Route {}

    record ToOrigin(long offset) implements Route {}

    /** Waits in the snapshot (a pending exception, the COW throttle, a merge); the snapshot ends it. */
    record Held() implements Route {}

    record Failed(IoStatus status) implements Route {}

    Route HELD = new Held();
    Route IO_ERROR = new Failed(IoStatus.IO_ERROR);
    Route NO_SPACE = new Failed(IoStatus.NO_SPACE);
}
