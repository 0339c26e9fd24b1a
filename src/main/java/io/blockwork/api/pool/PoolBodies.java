package io.blockwork.api.pool;

import io.blockwork.api.units.ByteSize;
import io.blockwork.service.assembly.ObjectState;
import io.blockwork.service.device.DeviceNames;
import io.blockwork.service.pool.PoolView;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Instant;
import java.util.List;

/** The JSON shapes of the pools API. */
final class PoolBodies {

    private PoolBodies() {}

    @Schema(description = "A new pool on one block device")
    record CreatePool(
            @Schema(description = "Unique among pools", example = "vg0", pattern = DeviceNames.PATTERN)
            @NotNull @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String name,
            @Schema(description = "The block device to divide into extents (a disk, an array, a mapped device), by "
                    + "name; nothing else may use it, and the pool keeps it to itself", example = "md0")
            @NotNull
            String device,
            @Schema(description = "A power of two of at least 64 KiB and a multiple of the device's logical block "
                    + "size; default 4 MiB")
            ByteSize extentSize) {
    }

    record Pool(
            String name,
            @Schema(description = "The block device the pool divides into extents") String device,
            @Schema(allowableValues = {"disk", "array", "dm", "volume", "snapshot"}) String deviceKind,
            @Schema(description = "The device's size; absent while it is not active") Long deviceSizeBytes,
            long extentSizeBytes,
            @Schema(description = "Whole extents on the device, in bytes (the device's tail smaller than an extent is unused)")
            long capacityBytes,
            long freeBytes,
            long usedBytes,
            Extents extents,
            @Schema(description = "The longest run of free extents: the largest volume that gets one segment")
            FreeRun largestFreeRun,
            int volumeCount,
            @Schema(description = "Its volumes by name") List<String> volumes,
            @Schema(description = "Whether start-up assembled it (desired versus actual)") ObjectState state,
            @Schema(description = "The node whose instance assembles and changes it; other nodes list it read-only")
            String node,
            Instant createdAt) {

        static Pool of(PoolView v) {
            return new Pool(v.name(), v.device(), v.deviceKind(), v.deviceSizeBytes(), v.extentSizeBytes(),
                    v.capacityBytes(), v.freeBytes(), v.usedBytes(),
                    new Extents(v.totalExtents(), v.freeExtents(), v.usedExtents()),
                    new FreeRun(v.largestFreeRunExtents(), v.largestFreeRunBytes()), v.volumes().size(), v.volumes(),
                    v.state(), v.node(), v.createdAt());
        }
    }

    record Extents(long total, long free, long used) {
    }

    record FreeRun(long extents, long bytes) {
    }
}
