package io.blockwork.service.volume;

import io.blockwork.service.assembly.ObjectState;
import io.blockwork.service.pool.Segment;
import java.time.Instant;
import java.util.List;

/**
 * A volume as the API shows it.
 *
 * @param device the block device the volume is: its own name, in {@code /api/v1/devices}
 * @param attributes {@code lvs}-style attribute characters (see {@link VolumeService#attributes})
 * @param exports names of the NBD exports of it
 * @param holders every object that uses it ("export v1", "dm top")
 * @param snapshots names of its snapshots, oldest first
 * @param segments where its extents lie, in volume order; null in lists
 * @param table its live table as {@code dmsetup table} prints it; null in lists
 * @param node its pool's node, whose instance assembles and changes it
 */
public record VolumeView(String name, String pool, long sizeBytes, long extentCount, long extentSizeBytes,
                         int segmentCount, String device, String attributes, List<String> exports,
                         List<String> holders, List<String> snapshots, ObjectState state, Instant createdAt, List<Segment> segments,
                         String table, String node) {

    public boolean exported() {
        return !exports.isEmpty();
    }
}
