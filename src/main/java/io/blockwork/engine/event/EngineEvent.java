package io.blockwork.engine.event;

/**
 * Something that happened to an engine object. Every event names the block device it is about
 * ({@link #device()}, its name at the time); the fields are plain values, so an event can be
 * kept, serialised or compared after the object has changed again.
 */
public sealed interface EngineEvent {

    /** The device the event is about: an md array for every event so far. */
    String device();

    /**
     * A member of array {@code device} became faulty.
     *
     * @param byRequest true for {@code mdadm --fail}, false for an I/O error
     */
    record MemberFailed(String device, String member, String reason, boolean byRequest) implements EngineEvent {}

    /**
     * The array changed its members on its own: a spare was taken into an empty slot, a rebuilt
     * member (or a replacement) became in sync, the initial resync finished.
     */
    record MembersChanged(String device) implements EngineEvent {}

    /**
     * A resync, recovery, check or repair began (or resumed after a restart of the daemon's loop).
     *
     * @param action md's sync_action word: resync, recover, check, repair
     * @param target the member being rebuilt, for recovery; else null
     */
    record SyncStarted(String device, String action, String target, long doneBytes, long totalBytes)
            implements EngineEvent {}

    /**
     * How far the running action is, at most once a second per array.
     *
     * @param speedKiBps recent speed; 0 while paused
     * @param etaSeconds time left at that speed, -1 if unknown
     */
    record SyncProgress(String device, String action, String target, long doneBytes, long totalBytes,
                        long speedKiBps, long etaSeconds, boolean paused) implements EngineEvent {
        public double percent() {
            return totalBytes == 0 ? 0 : doneBytes * 100.0 / totalBytes;
        }
    }

    /**
     * The action stopped.
     *
     * @param completed true if it reached the end; false if it was aborted, its target failed or
     *                  the array stopped
     * @param mismatchSectors md's mismatch_cnt after it (check and repair)
     */
    record SyncEnded(String device, String action, String target, boolean completed, long doneBytes, long totalBytes,
                     long mismatchSectors) implements EngineEvent {}
}
