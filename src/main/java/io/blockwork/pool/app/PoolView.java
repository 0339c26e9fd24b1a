package io.blockwork.pool.app;

import io.blockwork.shared.assembly.ObjectState;
import java.time.Instant;
import java.util.List;

/**
 * A pool as the API shows it. Sizes in bytes; capacity is the whole extents on the device.
 *
 * <p>A thin pool fills the same shape with its data blocks as extents (its chunk size as the
 * extent size, its hidden {@code <pool>-tpool} as the device) and adds {@link ThinPoolUsage}.
 *
 * @param deviceSizeBytes null while the device is not active
 * @param volumes the pool's volumes by name
 * @param node the node whose instance assembles and changes the pool, its volumes and snapshots;
 *        null for a thin pool (thin pools are not node-owned yet: every instance assembles them)
 * @param type {@link #CLASSIC} or {@link #THIN}
 * @param thin a thin pool's data and metadata use; null for a classic pool
 * @param thinPools the thin pools carved from a classic pool, by name; null for a thin pool
 * @param allocations every run of a classic pool's used extents with its owner, in pool order; null
 *        in lists and for a thin pool (whose blocks are handed out by its metadata, not in runs)
 */
public record PoolView(String name, String device, String deviceKind, Long deviceSizeBytes, long extentSizeBytes,
                       long totalExtents, long freeExtents, long usedExtents, long largestFreeRunExtents,
                       List<String> volumes, ObjectState state, Instant createdAt, String node, String type,
                       ThinPoolUsage thin, List<String> thinPools, List<PoolAllocation> allocations) {

    public static final String CLASSIC = "classic";
    public static final String THIN = "thin";

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
