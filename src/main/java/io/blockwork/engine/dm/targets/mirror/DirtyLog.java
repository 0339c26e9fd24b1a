package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.Quoted;
import io.blockwork.engine.dm.ArgBound;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.TargetArgs;
import io.blockwork.engine.dm.TargetException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The mirror's region log (the kernel's {@code dm_dirty_log}): per region, whether it is in sync
 * across the legs and whether it is recorded clean. Two bitmaps, as dm-log has them:
 * <ul>
 *   <li>{@code clean}: the persistent state. A region is marked (bit cleared) before a write to
 *       it reaches any leg, and cleared (bit set) only when no write is in flight there and the
 *       legs agree. A region not clean when the log is read back may differ between the legs.
 *   <li>{@code inSync}: the run-time state, loaded from {@code clean} at resume; regions not in
 *       sync are recovered by copying the default leg onto the others, and a write that fails
 *       on a leg takes its region out of sync.
 * </ul>
 *
 * <p>Threads: {@code clean} changes only on the mirror worker (mark, clear, resume, flush), so
 * a flush sees a stable picture; {@code inSync} and the sync count change under
 * {@link RegionHash}'s lock (the worker, and write completions taking a region out of sync).
 * Both are read lock-free.
 */
abstract sealed class DirtyLog permits CoreLog, DiskLog {

    /** The optional {@code [no]sync} log argument. */
    enum Sync {
        /** Core: every region out of sync at first; disk: use what the log says. */
        DEFAULT(""),
        /** Every region out of sync at resume: a full resync. */
        FORCE("sync"),
        /** Every region in sync at resume: the legs are known to agree. */
        NONE("nosync");

        final String word;

        Sync(String word) {
            this.word = word;
        }
    }

    private static final ArgBound LOG_ARGC = new ArgBound(0, ArgBound.UINT_MAX, "Invalid mirror log argument count");

    /**
     * The log arguments of a table line, checked.
     *
     * @param device the log device (disk log), or null (core)
     */
    record Spec(String type, BlockDevice device, long regionSectors, long regionCount, Sync sync) {

        DirtyLog create(List<Leg> legs, long targetSectors) {
            return device == null ? new CoreLog(regionSectors, regionCount, sync)
                    : new DiskLog(device, regionSectors, regionCount, sync, legs, targetSectors);
        }
    }

    /**
     * Reads {@code <log type> <#log args> <log args>...}: {@code core <region size> [[no]sync]}
     * or {@code disk <log dev> <region size> [[no]sync]}.
     */
    static Spec parse(TargetArgs args, long targetSectors) throws TargetException {
        String type = args.next("Insufficient mirror log arguments");
        long argc = args.readUnsigned(LOG_ARGC);
        if (argc > args.remaining()) {
            throw new TargetException("Insufficient mirror log arguments: " + argc + " announced, "
                    + args.remaining() + " given");
        }
        BlockDevice device = null;
        switch (type) {
            case "core" -> {
                if (argc < 1 || argc > 2) {
                    throw new TargetException("wrong number of arguments to dirty region log: " + argc
                            + " (core takes <region size> [[no]sync])");
                }
            }
            case "disk" -> {
                if (argc < 2 || argc > 3) {
                    throw new TargetException("wrong number of arguments to disk dirty region log: " + argc
                            + " (disk takes <log dev> <region size> [[no]sync])");
                }
                device = args.readDevice("Error creating mirror dirty log: log device lookup failure");
            }
            default -> throw new TargetException("Error creating mirror dirty log: unknown log type " + Quoted.of(type)
                    + " (core, disk)");
        }
        long regionSectors = regionSize(args.next("invalid region size"), targetSectors);
        Sync sync = Sync.DEFAULT;
        if (argc == (device == null ? 2 : 3)) {
            String s = args.next("unrecognised sync argument to dirty region log");
            sync = switch (s) {
                case "sync" -> Sync.FORCE;
                case "nosync" -> Sync.NONE;
                default -> throw new TargetException("unrecognised sync argument to dirty region log: " + s);
            };
        }
        long regionCount = targetSectors / regionSectors;
        if (regionCount > ArgBound.UINT_MAX) {
            throw new TargetException("region count exceeds limit of " + ArgBound.UINT_MAX);
        }
        if (device != null) {
            long need = DiskLog.bytesNeeded(regionCount);
            if (device.sizeBytes() < need) {
                throw new TargetException("log device " + device.name() + " too small: need " + need + " bytes");
            }
        }
        return new Spec(type, device, regionSectors, regionCount, sync);
    }

    /** A power of two of at least 8 sectors (4 KiB, so it suits 4K devices) that divides the target. */
    private static long regionSize(String s, long targetSectors) throws TargetException {
        long v = parseUnsigned(s);
        String why = v < 0 ? "not a number"
                : v < 8 || Long.bitCount(v) != 1 ? "a power of two of at least 8 sectors is needed"
                : v > targetSectors ? "larger than the target (" + targetSectors + " sectors)"
                : targetSectors % v != 0 ? "the target length (" + targetSectors + " sectors) is not a multiple of it"
                : null;
        if (why != null) {
            throw new TargetException("invalid region size " + s + ": " + why);
        }
        return v;
    }

    /** A decimal of digits only (below 10^18), or -1. */
    static long parseUnsigned(String s) {
        if (s.isEmpty() || s.length() > 18 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Long.parseLong(s);
    }

    final long regionSectors;
    final long regionBytes;
    final long regionCount;
    final Sync sync;
    /** Changed on the mirror worker only. */
    final RegionBitmap clean;
    /** Changed under {@link RegionHash}'s lock. */
    private final RegionBitmap inSync;
    private final AtomicLong syncCount = new AtomicLong();

    DirtyLog(long regionSectors, long regionCount, Sync sync) {
        this.regionSectors = regionSectors;
        this.regionBytes = regionSectors << 9;
        this.regionCount = regionCount;
        this.sync = sync;
        this.clean = new RegionBitmap(regionCount);
        this.inSync = new RegionBitmap(regionCount);
    }

    /* ---- State (the kernel's in_sync, is_clean, mark_region, clear_region, set_region_sync) ---- */

    final boolean inSync(long r) {
        return inSync.get(r);
    }

    final boolean isClean(long r) {
        return clean.get(r);
    }

    /** Worker only: the region is about to be written. */
    final void mark(long r) {
        if (clean.clear(r)) {
            touched(r);
        }
    }

    /** Worker only: no write is in flight there and the legs agree. */
    final void clear(long r) {
        if (clean.set(r)) {
            touched(r);
        }
    }

    /** Caller holds the region hash lock. */
    final void setInSync(long r, boolean value) {
        if (value ? inSync.set(r) : inSync.clear(r)) {
            syncCount.addAndGet(value ? 1 : -1);
        }
    }

    final long syncCount() {
        return syncCount.get();
    }

    final boolean allInSync() {
        return syncCount.get() == regionCount;
    }

    /** The first region at or after {@code from} that is out of sync, or -1 (get_resync_work). */
    final long nextOutOfSync(long from) {
        return inSync.nextClear(from);
    }

    /** Worker only, at resume: what is clean is what is in sync. */
    final void loadSyncFromClean() {
        inSync.copyFrom(clean);
        syncCount.set(clean.count());
    }

    /** A clean bit changed; a persistent log remembers to write it. */
    void touched(long r) {}

    /* ---- What each log type does ---- */

    /** Worker only: loads the state this table starts from (the kernel's log resume). */
    abstract void resume(MirrorIo io);

    /**
     * Worker only: makes every mark and clear so far persistent; the caller has made sure the legs
     * hold what cleared regions claim. Returns false if the log could not be written.
     */
    abstract boolean flush(MirrorIo io);

    /** True if marks must reach a device before the data (the disk log). */
    abstract boolean persistent();

    /** The log device, or null. */
    abstract BlockDevice device();

    /** A flush of the log device failed (health letter F). */
    void flushFailed() {}

    /** The log's part of the status line: INFO {@code 1 core} / {@code 3 disk <dev> <A|D|F>}; TABLE its arguments. */
    abstract String status(StatusType type);

    abstract List<DeviceRange> devices();

    /** The TABLE form of the arguments after the count: {@code <region size>} and the sync word. */
    final String regionAndSync() {
        return regionSectors + (sync == Sync.DEFAULT ? "" : " " + sync.word);
    }

    final int syncArgs() {
        return sync == Sync.DEFAULT ? 0 : 1;
    }
}
