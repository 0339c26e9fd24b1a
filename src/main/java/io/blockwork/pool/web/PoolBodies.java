package io.blockwork.pool.web;

import io.blockwork.shared.units.ByteSize;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.pool.app.PoolAllocation;
import io.blockwork.pool.app.PoolView;
import io.blockwork.pool.app.Segment;
import io.blockwork.pool.app.ThinPoolUsage;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Instant;
import java.util.List;

/** The JSON shapes of the pools API. */
final class PoolBodies {

    private PoolBodies() {}

    @Schema(description = "A new pool: classic (one block device divided into extents) or thin (data and metadata "
            + "devices, or space carved from a classic pool, handed out to thin volumes as they are written)")
    record CreatePool(
            @Schema(description = "Unique among pools", example = "vg0", pattern = DeviceNames.PATTERN)
            @NotNull @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String name,
            @Schema(description = "classic (default) or thin", allowableValues = {"classic", "thin"})
            String type,
            @Schema(description = "Classic: the block device to divide into extents (a disk, an array, a mapped "
                    + "device), by name; nothing else may use it, and the pool keeps it to itself", example = "md0")
            String device,
            @Schema(description = "Classic: a power of two of at least 64 KiB and a multiple of the device's logical "
                    + "block size; default 4 MiB")
            ByteSize extentSize,
            @Schema(description = "Thin: the block device for data blocks (with metadataDevice)", example = "d1")
            String dataDevice,
            @Schema(description = "Thin: the block device for the mappings (with dataDevice); creating the pool wipes "
                    + "its first 4 KiB", example = "d2")
            String metadataDevice,
            @Schema(description = "Thin: a classic pool to carve the data and metadata space from (with size), as "
                    + "lvcreate --type thin-pool does", example = "vg0")
            String from,
            @Schema(description = "Thin, with from: the data space, rounded up to whole extents of the classic pool")
            ByteSize size,
            @Schema(description = "Thin, with from: the metadata space; default 64 bytes per chunk, at least 2 MiB")
            ByteSize metadataSize,
            @Schema(description = "Thin: the data block size, a power of two from 64 KiB to 1 GiB; default 64 KiB")
            ByteSize chunkSize,
            @Schema(description = "Thin: free data space at or below which the pool raises its event; default none")
            ByteSize lowWaterMark,
            @Schema(description = "Thin: fail writes at once when the data space is full (default: queue them for 60 s,"
                    + " then fail)")
            Boolean errorWhenFull,
            @Schema(description = "Thin: zero a new block before a partial first write (default true)")
            Boolean zero,
            @Schema(description = "Thin: what a discard does: passdown (unmap, and discard the freed block on the data "
                    + "device; default), nopassdown (unmap only) or ignore", allowableValues = {"passdown", "nopassdown",
                    "ignore"})
            String discards) {
    }

    @Schema(description = "A thin pool's new size, online: data and/or metadata space (never smaller). A pool on "
            + "devices takes what its devices hold now when given {}")
    record GrowPool(
            @Schema(description = "The new data space") ByteSize size,
            @Schema(description = "The new metadata space (carved pools)") ByteSize metadataSize) {
    }

    record Pool(
            String name,
            @Schema(description = "The block device the pool divides into extents") String device,
            @Schema(allowableValues = {"disk", "array", "dm", "volume", "snapshot", "hidden"}) String deviceKind,
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
            Instant createdAt,
            @Schema(description = "classic or thin", allowableValues = {"classic", "thin"}) String type,
            @Schema(description = "A thin pool's data and metadata use (lvs Data% and Meta%) and overprovisioning; "
                    + "absent for a classic pool. Its extents are its chunks, its capacity the data space")
            ThinPoolUsage thin,
            @Schema(description = "The thin pools carved from this classic pool, by name (lvs lists them in their "
                    + "volume group); absent for a thin pool") List<String> thinPools,
            @Schema(description = "A classic pool's used extents, every run with its owner, in pool order: they add up "
                    + "to extents.used. Absent in lists and for a thin pool") List<Allocation> allocations) {

        static Pool of(PoolView v) {
            return new Pool(v.name(), v.device(), v.deviceKind(), v.deviceSizeBytes(), v.extentSizeBytes(),
                    v.capacityBytes(), v.freeBytes(), v.usedBytes(),
                    new Extents(v.totalExtents(), v.freeExtents(), v.usedExtents()),
                    new FreeRun(v.largestFreeRunExtents(), v.largestFreeRunBytes()), v.volumes().size(), v.volumes(),
                    v.state(), v.node(), v.createdAt(), v.type(), v.thin(), v.thinPools(),
                    v.allocations() == null ? null : v.allocations().stream().map(Allocation::of).toList());
        }
    }

    @Schema(description = "A run of a pool's used extents and what holds it")
    record Allocation(
            @Schema(description = "Its owner's name: a volume, a snapshot, or a thin pool carved from this pool",
                    example = "vol0") String owner,
            @Schema(description = "What the extents hold: volume (a volume's data), snapshot-cow (a snapshot's "
                    + "copy-on-write space, the hidden <snapshot>-cow), thin-pool-data or thin-pool-metadata (a carved "
                    + "thin pool's hidden <pool>-tdata and <pool>-tmeta)",
                    allowableValues = {"volume", "snapshot-cow", "thin-pool-data", "thin-pool-metadata"}) String role,
            @Schema(description = "Which of the owner's own extents the run is") ExtentRange ownerExtents,
            @Schema(description = "Where the run lies in the pool") ExtentRange poolExtents,
            long extents) {

        static Allocation of(PoolAllocation a) {
            Segment s = a.segment();
            return new Allocation(a.owner(), a.kind().role(), ExtentRange.of(s.ownerStart(), s.count()),
                    ExtentRange.of(s.poolStart(), s.count()), s.count());
        }
    }

    record Extents(long total, long free, long used) {
    }

    record FreeRun(long extents, long bytes) {
    }
}
