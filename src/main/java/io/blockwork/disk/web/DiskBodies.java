package io.blockwork.disk.web;

import io.blockwork.shared.units.ByteSize;
import io.blockwork.shared.units.TimeSpan;
import io.blockwork.engine.block.IoCounters;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceNames;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import java.time.Instant;
import java.util.List;

/** The JSON shapes of the disks API. */
final class DiskBodies {

    private DiskBodies() {}

    @Schema(description = "A new backing disk")
    record CreateDisk(
            @Schema(description = "Unique among all block devices", example = "d1", pattern = DeviceNames.PATTERN)
            @NotNull @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String name,
            @Schema(description = "memory: sparse RAM, empty after a restart; file: sparse image under the data dir, "
                    + "keeps its data; null: writes vanish, reads return zeros; nbd: an export of an NBD server "
                    + "(`uri`), such as another Blockwork's volume or nbdkit", allowableValues = {"memory", "file", "null", "nbd"})
            @NotNull @Pattern(regexp = "memory|file|null|nbd", message = "must be memory, file, null or nbd")
            String type,
            @Schema(description = "Bytes, or a string with a binary unit; a multiple of the logical block size. "
                    + "Required except for nbd disks, whose size is the export's (if given, it must match)")
            ByteSize size,
            @Schema(description = "nbd disks: the export, nbd://host[:port]/name (port 10809 by default) or "
                    + "nbd+unix:///name?socket=/path. NBD has no credentials: keep it on loopback or a private network",
                    example = "nbd://10.0.0.2:10809/vol0")
            String uri,
            @Schema(description = "nbd disks: connections to open (1..16, default 1); more than one only if the "
                    + "server offers multi-conn")
            Integer connections,
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

    @Schema(description = "Service times added to each request; each at most 1s")
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
            @Schema(description = "nbd disks: the export") String uri,
            @Schema(description = "nbd disks: connections configured") Integer connections,
            @Schema(description = "nbd disks: the link to the server; absent while not active") RemoteLink remote,
            ObjectState state,
            @Schema(description = "The node whose instance assembles and changes the disk; other nodes list it read-only")
            String node,
            Instant createdAt) {
    }

    @Schema(description = "An nbd disk's connection to its server")
    record RemoteLink(
            @Schema(description = "connected; connecting or disconnected (I/O fails meanwhile, and the client "
                    + "reconnects in the background); closed", allowableValues = {"connecting", "connected", "disconnected", "closed"})
            String state,
            @Schema(description = "Connections open now") int connections,
            @Schema(description = "Why the last connection ended or the last attempt failed") String lastError,
            @Schema(description = "Times the client reconnected after losing the server") long reconnects,
            @Schema(description = "Requests that got no reply in time (each ended its connection)") long timeouts,
            @Schema(description = "Requests waiting for the server") long inFlight,
            @Schema(description = "What the server offers: flush, fua, trim, write-zeroes, multi-conn, read-only")
            List<String> serverFlags,
            @Schema(description = "True if the server sends structured replies") Boolean structuredReplies) {
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
