package io.blockwork.pool.volume.app;

import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.pool.app.Segment;
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
 * @param node its pool's node, whose instance assembles and changes it; null for a thin volume (thin
 *        pools are not node-owned yet)
 * @param type {@link #LINEAR} (extents of a classic pool) or {@link #THIN} (a thin device of a thin pool)
 * @param allocatedBytes space it takes in its pool: its size for a linear volume, its mapped blocks
 *        for a thin one (shared blocks count for each volume that maps them)
 * @param dataPercent a thin volume's allocated share of its virtual size ({@code lvs} Data%); null
 *        for a linear volume or when not known
 */
public record VolumeView(String name, String pool, long sizeBytes, long extentCount, long extentSizeBytes,
                         int segmentCount, String device, String attributes, List<String> exports,
                         List<String> holders, List<String> snapshots, ObjectState state, Instant createdAt, List<Segment> segments,
                         String table, String node, String type, long allocatedBytes, Double dataPercent) {

    public static final String LINEAR = "linear";
    public static final String THIN = "thin";

    public boolean exported() {
        return !exports.isEmpty();
    }
}
