package io.blockwork.engine.dm;

import io.blockwork.engine.block.BlockDevice;

/**
 * Resolves the device names a table refers to (disks, arrays, other mapped devices). Supplied by
 * the caller that owns the namespace, the service's device registry.
 */
@FunctionalInterface
public interface DeviceLookup {

    /** The device called {@code name}, or null if there is none. */
    BlockDevice find(String name);
}
