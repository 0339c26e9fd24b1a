package io.blockwork.service.pool;

import io.blockwork.service.assembly.ObjectState;
import java.time.Instant;
import java.util.List;

/**
 * A pool as the API shows it. Sizes in bytes; capacity is the whole extents on the device.
 *
 * @param deviceSizeBytes null while the device is not active
 * @param volumes the pool's volumes by name
 * @param node the node whose instance assembles and changes the pool, its volumes and snapshots
 */
public record PoolView(String name, String device, String deviceKind, Long deviceSizeBytes, long extentSizeBytes,
                       long totalExtents, long freeExtents, long usedExtents, long largestFreeRunExtents,
                       List<String> volumes, ObjectState state, Instant createdAt, String node) {

    public long capacityBytes() {
        return totalExtents * extentSizeBytes;
    }

    public long freeBytes() {
        return freeExtents * extentSizeBytes;
    }

    public long usedBytes() {
        return usedExtents * extentSizeBytes;
    }

    public long largestFreeRunBytes() {
        return largestFreeRunExtents * extentSizeBytes;
    }
}
