package io.blockwork.api.disk;

import io.blockwork.api.units.ByteSize;
import io.blockwork.api.units.TimeSpan;
import io.blockwork.engine.block.IoCounters;
import io.blockwork.service.assembly.ObjectState;
import io.blockwork.service.device.DeviceNames;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import java.time.Instant;

/** The JSON shapes of the disks API. */
final class DiskBodies {

    private DiskBodies() {}

    @Schema(description = "A new backing disk")
    record CreateDisk(
            @Schema(description = "Unique among all block devices", example = "d1", pattern = DeviceNames.PATTERN)
            @NotNull @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String name,
            @Schema(description = "memory: sparse RAM, empty after a restart; file: sparse image under the data dir, "
                    + "keeps its data; null: writes vanish, reads return zeros", allowableValues = {"memory", "file", "null"})
            @NotNull @Pattern(regexp = "memory|file|null", message = "must be memory, file or null")
            String type,
            @Schema(description = "Bytes, or a string with a binary unit; a multiple of the logical block size")
            @NotNull
            ByteSize size,
            @Schema(description = "512 (default) or 4096", allowableValues = {"512", "4096"})
            Integer logicalBlockSize,
            @Schema(description = "writethrough (default): every completed write is durable; writeback: a volatile "
                    + "cache that only flush and FUA make durable", allowableValues = {"writethrough", "writeback"})
            @Pattern(regexp = "writethrough|writeback", message = "must be writethrough or writeback")
            String cache,
            @Valid Latency latency,
            @Schema(description = "Most requests in service at once; 0 (default) for no limit")
            @PositiveOrZero
            Integer queueDepth,
            @Valid Strategies strategies,
            @Schema(description = "File disks: new (default) creates <name>.img in the data dir; existing opens the "
                    + "image already there (its length must equal size), e.g. to assemble an array from its images "
                    + "after the configuration was lost", allowableValues = {"new", "existing"})
            @Pattern(regexp = "new|existing", message = "must be new or existing")
            String image) {
    }

    @Schema(description = "A change to a running disk; absent members stay as they are")
    record UpdateDisk(
            @Valid Latency latency,
            @Schema(description = "Most requests in service at once; 0 for no limit")
            @PositiveOrZero
            Integer queueDepth,
            @Valid Faults faults) {
    }

    @Schema(description = "Service times added to each request")
    record Latency(
            @Schema(example = "80us") TimeSpan read,
            @Schema(example = "80us") TimeSpan write,
            @Schema(example = "1ms") TimeSpan flush,
            @Schema(example = "20us", description = "Each time is spread uniformly by ± this")
            TimeSpan jitter) {
    }

    @Schema(description = "Selectable mechanisms, for before/after comparisons")
    record Strategies(
            @Schema(description = "merged (default): concurrent flushes share device flushes; off: one device flush per request",
                    allowableValues = {"merged", "off"})
            @Pattern(regexp = "merged|off", message = "must be merged or off")
            String flush) {
    }

    @Schema(description = "Error injection: requests of these kinds fail with an I/O error. Not persisted.")
    record Faults(Boolean failReads, Boolean failWrites, Boolean failFlushes) {
    }

    record Disk(
            String name,
            String type,
            long sizeBytes,
            int logicalBlockSize,
            String cache,
            Latency latency,
            int queueDepth,
            Strategies strategies,
            @Schema(description = "True if the data survives a restart of the service (file disks only)")
            boolean keepsData,
            @Schema(description = "Bytes of memory or file blocks holding data; absent while the disk is not active")
            Long allocatedBytes,
            @Schema(description = "Absent while the disk is not active")
            DiskStats stats,
            @Schema(description = "Absent while the disk is not active")
            Faults faults,
            ObjectState state,
            Instant createdAt) {
    }

    record DiskStats(long reads, long writes, long flushes, long discards, long readBytes, long writtenBytes,
                 long errors,
                 @Schema(description = "Flushes that reached the medium after merging") long mediaFlushes,
                 @Schema(description = "Requests merged into an adjacent one while plugged") long merges) {

        static DiskStats of(IoCounters io, long mediaFlushes, long merges) {
            return new DiskStats(io.reads(), io.writes(), io.flushes(), io.discards(), io.readBytes(),
                    io.writtenBytes(), io.errors(), mediaFlushes, merges);
        }
    }
}
