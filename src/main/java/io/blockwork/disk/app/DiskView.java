package io.blockwork.disk.app;

import io.blockwork.engine.block.IoCounters;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.nbd.client.NbdRemoteDevice;
import io.blockwork.shared.assembly.ObjectState;
import java.time.Instant;

/**
 * A disk as the API shows it: its configuration, plus what its live engine object reports.
 *
 * @param allocatedBytes memory or file blocks holding data; null when the disk is not active
 * @param stats null when the disk is not active
 * @param faults injected errors, null when not active (faults are not persisted)
 * @param remote an nbd disk's link to its server; null for other types and while not active
 * @param node the node whose instance assembles the disk
 */
public record DiskView(DiskSpec spec, Instant createdAt, ObjectState state, Long allocatedBytes,
                       Stats stats, DiskFaults faults, NbdRemoteDevice.Status remote, String node) {

    /** Request counters, plus what the disk's queue did with them. */
    public record Stats(IoCounters io, long mediaFlushes, long merges) {}
}
