package io.blockwork.engine.dm;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;

/**
 * How a mapped device fans an empty flush out over its table (seed 002). The strategies, named
 * as the API names them:
 * <ul>
 *   <li>{@code per-device} ({@link PerDeviceFlush}, the default, Linux 6.11 "dm: optimize
 *       flushes"): when every target lets flushes bypass its map, one flush to each distinct
 *       underlying device and no map call; otherwise as {@code per-target};
 *   <li>{@code per-target} ({@link PerTargetFlush}, before 6.11): {@code numFlushBios} flushes
 *       through every target's map, so a table of 1024 linear targets on one disk sends that disk
 *       1024 flushes.
 * </ul>
 */
public interface EmptyFlush {

    EmptyFlush PER_DEVICE = new PerDeviceFlush();
    EmptyFlush PER_TARGET = new PerTargetFlush();

    /** The API name. */
    String label();

    /**
     * Sends {@code flush} on through {@code paths}; each path adds a reference to it, so the
     * caller ends its own reference afterwards and the flush completes after the last path.
     */
    void issue(Table table, Bio flush, Paths paths);

    /** The two ways a flush leaves a mapped device; both count as I/O in flight for suspend. */
    interface Paths {

        /** Straight to an underlying device, no target involved. */
        void toDevice(BlockDevice device, Bio flush);

        /** Through flush number {@code index} of {@code target}'s {@link Target#mapFlush}. */
        void throughTarget(Table.Entry target, int index, Bio flush);
    }

    static EmptyFlush fromLabel(String label) {
        for (EmptyFlush s : new EmptyFlush[] {PER_DEVICE, PER_TARGET}) {
            if (s.label().equals(label)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown empty-flush strategy '" + label + "' (per-device, per-target)");
    }
}
