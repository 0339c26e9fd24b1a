package io.blockwork.engine.md;

import io.blockwork.engine.md.metadata.WriteIntentBitmap;
import java.lang.foreign.MemorySegment;

/**
 * What the {@link SyncDaemon} needs from a redundant level, copies ({@link Mirrored}) or parity
 * ({@link Raid5}): the resync point, and one window at a time of resync/check/repair over array
 * bytes and of recovery over member bytes, and where the write-intent bitmap lets it skip.
 *
 * <p>The bitmap covers the level's sync range (md's resync_max_sectors): array bytes for
 * raid1/raid10, each member's bytes for raid4/5/6. {@link #syncOffsetOf} maps a resync position
 * (array bytes) into it.
 */
interface Redundancy {

    /** How a recovery window ended. */
    enum Recovered { COPIED, SKIPPED, NO_SOURCE, TARGET_FAILED }

    /** Called once by the array, before it serves I/O. */
    void metadata(ArrayMetadata m);

    /** The array's superblocks and bitmap; {@link ArrayMetadata#NONE} without. */
    ArrayMetadata metadata();

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

    /**
     * Where a resync must look next, at or after array offset {@code offset}: {@code offset} itself
     * without a bitmap, else the first window holding a chunk the bitmap marks NEEDED
     * ({@link #sizeBytes} when none does).
     */
    long nextResync(long offset);

    /** The resync window at {@code offset}: {@link #scrubWindowAt}, cut where the bitmap's NEEDED chunks end. */
    long resyncWindowAt(long offset);

    /** A resync or repair window is done: with every slot in sync, its bitmap chunks need no more syncing. */
    void windowSynced(long offset, long len);

    /** The array offset {@code offset} in the level's sync range, which the bitmap and resync_offset use. */
    default long syncOffsetOf(long offset) {
        return offset;
    }

    /** A position in the sync range back to the array offset a resync starts from there. */
    default long arrayOffsetOfSync(long syncOffset) {
        return syncOffset;
    }

    /** Bytes of each member a recovery rebuilds. */
    long rebuildBytes();

    /** Bytes from member offset {@code addr} one recovery window covers. */
    long rebuildWindowAt(long addr);

    /**
     * The recovery window at member byte {@code addr} of {@code target}: {@link #rebuildWindowAt},
     * and for a re-add through the bitmap cut where the chunks' NEEDED state changes, so that
     * {@link #rebuild} copies or skips whole runs of chunks.
     */
    default long rebuildWindow(Member target, long addr) {
        return rebuildWindowAt(addr);
    }

    /**
     * Rebuilds {@code [addr, addr+len)} of {@code target}, then advances its rebuilt mark; a target
     * re-added through the bitmap skips ({@link Recovered#SKIPPED}) windows the bitmap does not mark.
     */
    Recovered rebuild(Member target, long addr, long len, MemorySegment buffer);

    /**
     * Bytes from sync-range {@code offset} (at most {@code max}) whose bitmap chunks are all NEEDED,
     * or all not; {@code max} without a bitmap.
     */
    static long neededRun(WriteIntentBitmap bitmap, long offset, long max) {
        if (bitmap == null) {
            return max;
        }
        long chunk = bitmap.chunkBytes();
        boolean needed = bitmap.needed(offset, 1);
        long run = chunk - offset % chunk;
        while (run < max && bitmap.needed(offset + run, 1) == needed) {
            run += chunk;
        }
        return Math.min(run, max);
    }
}
