package io.blockwork.pool.volume.web;

import io.blockwork.pool.web.ExtentRange;
import io.blockwork.shared.units.ByteSize;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.pool.app.Segment;
import io.blockwork.pool.volume.app.VolumeResult;
import io.blockwork.pool.volume.app.VolumeView;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Instant;
import java.util.List;

/** The JSON shapes of the volumes API. */
final class VolumeBodies {

    private VolumeBodies() {}

    @Schema(description = "A new volume")
    record CreateVolume(
            @Schema(description = "Unique among all block devices", example = "vol0", pattern = DeviceNames.PATTERN)
            @NotNull @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String name,
            @Schema(description = "A whole number of 512-byte sectors; rounded up to whole extents")
            @NotNull
            ByteSize size) {
    }

    @Schema(description = "A change to a volume; absent members stay as they are")
    record ChangeVolume(
            SizeChange size,
            @Schema(description = "Confirms a smaller size: the data past the new end is lost")
            Boolean allowShrink,
            @Schema(description = "A new name; refused while the volume is exported or used", example = "vol1",
                    pattern = DeviceNames.PATTERN)
            @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String name) {
    }

    @Schema(description = "A new name for the volume")
    record RenameVolume(
            @Schema(example = "vol1", pattern = DeviceNames.PATTERN)
            @NotNull @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String newName) {
    }

    record Volume(
            String name,
            String pool,
            long sizeBytes,
            long extents,
            long extentSizeBytes,
            @Schema(description = "Runs of contiguous pool extents the volume is made of") int segmentCount,
            @Schema(description = "The block device the volume is, in /api/v1/devices (its own name)") String device,
            @Schema(description = "lvs-style attributes: type (- plain, o origin of snapshots, O origin merging one), "
                    + "permissions, allocation policy, fixed minor, state "
                    + "(a active, s suspended, - not active), open (o exported or used), then target type, zeroing, "
                    + "health, skip activation", example = "-wi-a-----")
            String attributes,
            boolean exported,
            @Schema(description = "Names of its NBD exports") List<String> exports,
            @Schema(description = "Objects that use it, e.g. \"export vol0\"") List<String> holders,
            @Schema(description = "Names of its snapshots, oldest first") List<String> snapshots,
            @Schema(description = "Whether start-up assembled it (desired versus actual)") ObjectState state,
            @Schema(description = "The node whose instance assembles and changes it; other nodes list it read-only")
            String node,
            Instant createdAt,
            @Schema(description = "Where its extents lie, in volume order; absent in lists") List<VolumeSegment> segments,
            @Schema(description = "Its live table as dmsetup table prints it (sectors); absent in lists",
                    example = "0 8192 linear md0 0\n")
            String table,
            @Schema(description = "In answers to a create or resize: the size asked for and the rounding up to whole extents")
            SizeRequest sizeRequest,
            @Schema(description = "linear (extents of a classic pool) or thin (a thin pool's blocks as written)",
                    allowableValues = {"linear", "thin"})
            String type,
            @Schema(description = "Pool space it takes: its size for a linear volume, its mapped blocks for a thin one "
                    + "(blocks shared with snapshots count for each)")
            long allocatedBytes,
            @Schema(description = "A thin volume's allocated share of its size, in percent (lvs Data%); absent for a "
                    + "linear volume", example = "12.5")
            Double dataPercent) {

        static Volume of(VolumeView v) {
            return of(v, null);
        }

        static Volume of(VolumeResult r) {
            VolumeView v = r.volume();
            return of(v, new SizeRequest(r.requestedBytes(), v.sizeBytes(), r.roundedUpBytes(), r.note()));
        }

        private static Volume of(VolumeView v, SizeRequest request) {
            List<VolumeSegment> segments = v.segments() == null ? null
                    : v.segments().stream().map(VolumeSegment::of).toList();
            return new Volume(v.name(), v.pool(), v.sizeBytes(), v.extentCount(), v.extentSizeBytes(), v.segmentCount(),
                    v.device(), v.attributes(), v.exported(), v.exports(), v.holders(), v.snapshots(), v.state(),
                    v.node(), v.createdAt(), segments, v.table(), request, v.type(), v.allocatedBytes(), v.dataPercent());
        }
    }

    record SizeRequest(long requestedBytes, long sizeBytes, long roundedUpBytes, String note) {
    }

    @Schema(description = "A run of the volume's extents and where it lies in the pool (inclusive extent ranges)")
    record VolumeSegment(ExtentRange volumeExtents, ExtentRange poolExtents, long extents) {
        static VolumeSegment of(Segment s) {
            return new VolumeSegment(ExtentRange.of(s.ownerStart(), s.count()), ExtentRange.of(s.poolStart(), s.count()),
                    s.count());
        }
    }
}
