package io.blockwork.engine.dm.snapshot;

/**
 * A snapshot's state and space, for the API and for the status line.
 *
 * @param state valid, or why not
 * @param allocatedSectors COW space handed out (header and metadata included), as the kernel counts it
 * @param totalSectors the COW device's size
 * @param metadataSectors header and metadata areas (0 for a transient store)
 * @param exceptions chunks copied out (and, while merging, not yet merged back)
 * @param merge the merge's progress; {@link MergeState#NONE} unless the snapshot is a merge target's
 */
public record SnapshotStatus(State state, long allocatedSectors, long totalSectors, long metadataSectors,
                             long exceptions, MergeState merge) {

    public enum State { VALID, INVALID, OVERFLOW, MERGE_FAILED }

    public enum MergeState {
        NONE,
        /** Copying exceptions back to the origin. */
        RUNNING,
        /** Stopped by a suspend; resumes with the device. */
        STOPPED,
        /** Every exception is back on the origin. */
        DONE,
        FAILED
    }

    /** The INFO status line, as {@code dmsetup status} prints it for a snapshot target. */
    public String text() {
        return switch (state) {
            case INVALID -> "Invalid";
            case MERGE_FAILED -> "Merge failed";
            case OVERFLOW -> "Overflow";
            case VALID -> allocatedSectors + "/" + totalSectors + " " + metadataSectors;
        };
    }

    /** How full the COW device is, 0 to 100 (metadata included, as lvm reports a snapshot's use). */
    public double fillPercent() {
        return totalSectors == 0 ? 0 : 100.0 * allocatedSectors / totalSectors;
    }

    /** The kernel's "merge done" signal: nothing is allocated beyond the metadata. */
    public boolean allocatedIsMetadata() {
        return allocatedSectors == metadataSectors;
    }
}
