package io.blockwork.engine.dm;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;

/**
 * What a target's {@link Target#map} did with a bio (the kernel's {@code DM_MAPIO_*} codes).
 */
public sealed interface MapResult {

    /** The core sends the bio to {@code device} at byte {@code offset} (ignored for flushes). */
    record Remapped(BlockDevice device, long offset) implements MapResult {}

    /** The target took the bio and will end it exactly once, possibly later or on another thread. */
    record Submitted() implements MapResult {}

    /** The target is done with the bio; the core ends it with {@code status} (OK, or the error). */
    record Completed(IoStatus status) implements MapResult {}

    /**
     * Push the bio back: during a {@code noflush} suspend it is kept and mapped again after resume
     * (through the table live then); otherwise it fails with {@link IoStatus#IO_ERROR}.
     */
    record Requeue() implements MapResult {}

    MapResult SUBMITTED = new Submitted();
    MapResult OK = new Completed(IoStatus.OK);
    MapResult IO_ERROR = new Completed(IoStatus.IO_ERROR);
    MapResult REQUEUE = new Requeue();

    static MapResult remap(BlockDevice device, long offset) {
        return new Remapped(device, offset);
    }
}
