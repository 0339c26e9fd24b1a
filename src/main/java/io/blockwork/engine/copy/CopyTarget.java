package io.blockwork.engine.copy;

import io.blockwork.engine.block.BlockDevice;

/** Where a copy goes: a device and a byte offset on it. */
public record CopyTarget(BlockDevice device, long offset) {}
