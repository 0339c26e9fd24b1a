package io.blockwork.engine.md;

import java.lang.foreign.MemorySegment;

/**
 * What the {@link SyncDaemon} needs from a redundant level, copies ({@link Mirrored}) or parity
 * ({@link Raid5}): the resync point, and one window at a time of resync/check/repair over array
 * bytes and of recovery over member bytes.
 */
interface Redundancy {

    /** How a recovery window ended. */
    enum Recovered { COPIED, NO_SOURCE, TARGET_FAILED }

    long sizeBytes();

    /** Array bytes below this are known consistent; {@link Long#MAX_VALUE} when clean. */
    long syncedTo();

    void syncedTo(long offset);

    /** False while a resync could not make the array consistent (a degraded parity array). */
    default boolean canResync() {
        return true;
    }

    /** Bytes from {@code offset} the resync/check window starting there covers. */
    long scrubWindowAt(long offset);

    /** Resync, check or repair one window; returns the mismatched sectors found. */
    long scrub(long offset, long len, boolean fix, MemorySegment[] buffers);

    /** Buffers of {@link Mirrored#WINDOW} bytes a scrub window needs. */
    int scrubBuffers();

    /** Bytes of each member a recovery rebuilds. */
    long rebuildBytes();

    /** Bytes from member offset {@code addr} one recovery window covers. */
    long rebuildWindowAt(long addr);

    /** Rebuilds {@code [addr, addr+len)} of {@code target}, then advances its rebuilt mark. */
    Recovered rebuild(Member target, long addr, long len, MemorySegment buffer);
}
