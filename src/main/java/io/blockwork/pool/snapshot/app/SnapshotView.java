package io.blockwork.pool.snapshot.app;

import java.time.Instant;
import java.util.List;

/**
 * A snapshot as the API shows it.
 *
 * @param state {@code active}, {@code invalid} (its COW filled up: it returns errors now),
 *              {@code overflow}, {@code merging}, {@code merge-failed}, or {@code failed} /
 *              {@code blocked} when start-up could not assemble it ({@code reason} says why)
 * @param fillPercent how full its COW space is (allocated / total of the status line); null when unknown
 * @param allocatedBytes COW space in use, metadata included; null when unknown
 * @param exceptions chunks it keeps (copied out of the volume, or written to it); null when unknown
 * @param merge the merge's progress; null unless merging
 * @param status its status line as {@code dmsetup status} prints it; null when not active
 * @param node its pool's node, whose instance assembles and changes it; null for a thin snapshot
 *        (thin pools are not node-owned yet)
 * @param type {@link #COW} (copy-on-write space of a classic pool) or {@link #THIN} (a thin device
 *        sharing blocks with its source; sizeBytes is then its virtual size, fillPercent its Data%)
 * @param virtualSizeBytes what a client reading it sees: its volume's size for COW, its own virtual size for thin
 * @param source what a thin snapshot was taken of: its volume, or another snapshot of it; the volume for COW
 */
public record SnapshotView(String name, String pool, String volume, long sizeBytes, long extentCount,
                           long chunkSizeBytes, boolean persistent, String state, String reason, Double fillPercent,
                           Long allocatedBytes, Long exceptions, MergeProgress merge, List<String> exports,
                           String status, Instant createdAt, String node, String type, String source, long virtualSizeBytes) {

    public static final String COW = "cow";
    public static final String THIN = "thin";

    /**
     * @param exceptionsAtStart chunks to copy back when the merge began
     * @param exceptionsLeft chunks still to copy back; null when unknown
     * @param percent done, 0 to 100
     */
    public record MergeProgress(long exceptionsAtStart, Long exceptionsLeft, double percent) {
    }
}
