package io.blockwork.engine.md;

/**
 * Progress of the sync daemon, as mdadm --detail and /proc/mdstat show it.
 *
 * @param action what runs (IDLE when nothing does)
 * @param paused the daemon is frozen by request; the action resumes where it stopped
 * @param doneBytes progress: array bytes for resync/check/repair, member bytes for recovery
 * @param totalBytes where the action ends, in the same unit
 * @param speedKiBps recent speed, averaged over the last few seconds
 * @param etaSeconds time left at that speed; -1 if unknown
 * @param target the member being rebuilt, for recovery
 */
public record SyncStatus(SyncAction action, boolean paused, long doneBytes, long totalBytes, long speedKiBps,
                         long etaSeconds, String target) {

    public static final SyncStatus IDLE = new SyncStatus(SyncAction.IDLE, false, 0, 0, 0, -1, null);

    public double percent() {
        return totalBytes == 0 ? 0 : doneBytes * 100.0 / totalBytes;
    }

    SyncStatus paused(boolean p) {
        return new SyncStatus(action, p, doneBytes, totalBytes, p ? 0 : speedKiBps, p ? -1 : etaSeconds, target);
    }
}
