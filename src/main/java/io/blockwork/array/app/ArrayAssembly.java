package io.blockwork.array.app;

import io.blockwork.engine.md.MdAssembly;
import java.util.List;

/**
 * What an assembly from the devices gave: the array, and what became of each device (in sync,
 * rebuilding, re-added, spare, or refused with the reason).
 */
public record ArrayAssembly(ArrayView array, List<MdAssembly.DeviceOutcome> devices) {}
