package io.blockwork.pool.snapshot.web;

import io.blockwork.shared.units.ByteSize;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.pool.snapshot.app.SnapshotView;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Instant;
import java.util.List;

/** The JSON shapes of the snapshots API. */
final class SnapshotBodies {

    private SnapshotBodies() {}

    @Schema(description = "A new snapshot of a volume")
    record CreateSnapshot(
            @Schema(description = "Unique among all block devices; the snapshot is a block device of that name, and "
                    + "its COW space the hidden device <name>-cow", example = "vol0-snap", pattern = DeviceNames.PATTERN)
            @NotNull @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String name,
            @Schema(description = "Copy-on-write space, allocated from the volume's pool: a whole number of 512-byte "
                    + "sectors, rounded up to whole extents. When it fills up the snapshot becomes invalid. Required in a "
                    + "classic pool; a thin snapshot needs none")
            ByteSize size,
            @Schema(description = "The copy-on-write unit: a power of two from 4 KiB to 512 KiB; default 4 KiB")
            ByteSize chunkSize,
            @Schema(description = "Keep the exceptions on the COW space (survives restarts; default true), or in memory "
                    + "(lost at a restart, cannot be merged)")
            Boolean persistent,
            @Schema(description = "Thin pools: take the snapshot of this snapshot of the volume instead of the volume")
            String source) {
    }

    record Snapshot(
            String name,
            String pool,
            @Schema(description = "The volume it is a snapshot of (its origin)") String volume,
            @Schema(description = "Kept for scripts that read it before cowSizeBytes and virtualSizeBytes: a COW "
                    + "snapshot's COW space, a thin snapshot's virtual size. Read those two instead", deprecated = true)
            long sizeBytes,
            @Schema(description = "A COW snapshot's copy-on-write space (its hidden <name>-cow device); absent for a "
                    + "thin snapshot, which shares its pool's data space") Long cowSizeBytes,
            @Schema(description = "What a client reading the snapshot sees, as its export and the devices page show it: "
                    + "its volume's size for COW, its own virtual size for thin") long virtualSizeBytes,
            long extents,
            long chunkSizeBytes,
            boolean persistent,
            @Schema(description = "active; invalid (its COW space filled up, it returns errors); overflow; merging; "
                    + "merge-failed; merged (a thin snapshot's merge answer: it is gone, its volume has its content); or "
                    + "failed / blocked when start-up could not assemble it (see reason); other-node when another "
                    + "node's instance assembles it",
                    allowableValues = {"active", "invalid", "overflow", "merging", "merge-failed", "merged", "failed",
                            "blocked", "other-node"})
            String state,
            @Schema(description = "Why it is failed or blocked") String reason,
            @Schema(description = "How full its COW space is, in percent (allocated / total of its status line, "
                    + "metadata included); absent unless active", example = "12.5")
            Double fillPercent,
            @Schema(description = "COW space in use, metadata included; absent unless active") Long allocatedBytes,
            @Schema(description = "Chunks it keeps (copied out of the volume, or written to it); absent unless active")
            Long exceptions,
            @Schema(description = "Progress of the merge (rollback); absent unless merging") Merge merge,
            @Schema(description = "Names of its NBD exports") List<String> exports,
            @Schema(description = "Its status line as dmsetup status prints it (sectors)", example = "0 8192 snapshot 24/4096 16")
            String status,
            @Schema(description = "The node whose instance assembles and changes it; other nodes list it read-only")
            String node,
            Instant createdAt,
            @Schema(description = "cow (copy-on-write space of a classic pool) or thin (shares its source's blocks; size "
                    + "is then its virtual size, fillPercent its Data%)", allowableValues = {"cow", "thin"})
            String type,
            @Schema(description = "What it was taken of: the volume, or (thin) another snapshot of it") String source) {

        static Snapshot of(SnapshotView s) {
            SnapshotView.MergeProgress m = s.merge();
            return new Snapshot(s.name(), s.pool(), s.volume(), s.sizeBytes(),
                    SnapshotView.COW.equals(s.type()) ? s.sizeBytes() : null, s.virtualSizeBytes(), s.extentCount(),
                    s.chunkSizeBytes(),
                    s.persistent(), s.state(), s.reason(), s.fillPercent(), s.allocatedBytes(), s.exceptions(),
                    m == null ? null : new Merge(m.exceptionsAtStart(), m.exceptionsLeft(), m.percent()), s.exports(),
                    s.status(), s.node(), s.createdAt(), s.type(), s.source());
        }
    }

    record Merge(
            @Schema(description = "Chunks to copy back when the merge began") long exceptionsAtStart,
            @Schema(description = "Chunks still to copy back") Long exceptionsLeft,
            @Schema(description = "Done, 0 to 100") double percent) {
    }
}
