package io.blockwork.service.disk;

import io.blockwork.engine.block.IoCounters;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.service.assembly.ObjectState;
import java.time.Instant;

/**
 * A disk as the API shows it: its configuration, plus what its live engine object reports.
 *
 * @param allocatedBytes memory or file blocks holding data; null when the disk is not active
 * @param stats null when the disk is not active
 * @param faults injected errors, null when not active (faults are not persisted)
 */
public record DiskView(DiskSpec spec, Instant createdAt, ObjectState state, Long allocatedBytes,
                       Stats stats, DiskFaults faults) {

    /** Request counters, plus what the disk's queue did with them. */
    public record Stats(IoCounters io, long mediaFlushes, long merges) {}
}
