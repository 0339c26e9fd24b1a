package io.blockwork.engine.dm;

import io.blockwork.engine.block.BlockDevice;

/**
 * One area of an underlying device a target uses (the kernel's {@code iterate_devices} callout
 * arguments): the table checks it lies inside the device, and the core flushes and stacks
 * limits over the devices named here.
 *
 * @param device the underlying device
 * @param startSector first sector used
 * @param lengthSectors sectors used
 */
public record DeviceRange(BlockDevice device, long startSector, long lengthSectors) {}
