package io.blockwork.engine.dm.snapshot;

/**
 * A snapshot could not be set up or handed over: a refused argument, an unreadable or foreign
 * COW device, a handover whose source is still live. The message is ready to show; the snapshot
 * targets pass it on as their constructor error.
 */
public final class SnapshotException extends Exception {

    public SnapshotException(String message) {
        super(message);
    }
}
