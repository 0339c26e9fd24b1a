package io.blockwork.engine.dm.targets.mirror;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.Bio;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The run-time state of the regions in use (the kernel's {@code dm_region_hash}): writes in
 * flight per region, regions being recovered and the writes waiting for them, and regions gone
 * quiet that may be recorded clean. A region has no entry while it is clean with nothing in
 * flight; its state then comes from the log alone.
 *
 * <p>States (see {@link RegionState}): a region being recovered is RECOVERING whatever the log
 * says; otherwise NOSYNC if the log has it out of sync, DIRTY if marked or written to, else CLEAN.
 *
 * <p>Locking: {@link #lock} guards the entries, the idle queue and every change of the log's
 * in-sync bits. It is a leaf, taken by the mirror worker and by write completions; nothing under
 * it submits I/O, calls back or blocks.
 */
final class RegionHash {

    /** How the worker sends a write it admitted. */
    enum Route {
        /** The region is being recovered: the write waits for it. */
        DELAYED,
        /** In sync: every leg, after the log has recorded the region dirty. */
        ALL_LEGS,
        /** Out of sync: the default leg only; recovery copies it to the others later. */
        DEFAULT_LEG
    }

    /** What a write completion left behind. */
    enum AfterWrite {
        /** Other writes are still in flight there. */
        BUSY,
        /** The region went quiet: it may be recorded clean after the quiet period. */
        IDLE,
        /** The region is waiting to be recovered and its last write just ended: recovery may start. */
        QUIESCED
    }

    /** A region the worker picked for recovery; {@code quiesced} if no write is in flight there. */
    record Recovery(long region, boolean quiesced) {}

    private static final class Region {
        int pending;
        boolean recovering;
        long idleSince = -1;
        ArrayDeque<Bio> delayed;
        /**
         * The worker has recorded the region dirty in the log (written, for a disk log) and it is
         * in sync: a write may go straight to the legs from the submitting thread. Cleared when the
         * region is picked for clearing or recovery, or leaves sync.
         */
        boolean logged;
    }

    private record IdleMark(long region, long since) {}

    private final DirtyLog log;
    private final ReentrantLock lock = new ReentrantLock();
    @GuardedBy("lock")
    private final Map<Long, Region> regions = new HashMap<>();
    /** Regions that went quiet, oldest first; stale marks are skipped. */
    @GuardedBy("lock")
    private final ArrayDeque<IdleMark> idle = new ArrayDeque<>();
    /** The lowest region taken out of sync since the worker last looked. */
    @GuardedBy("lock")
    private long outOfSyncSince = Long.MAX_VALUE;
    @GuardedBy("lock")
    private int recovering;

    RegionHash(DirtyLog log) {
        this.log = log;
    }

    /* ---- Writes ---- */

    /** Worker: routes each write; a write to a clean region marks it in the log (flush before sending). */
    List<Route> admit(List<Bio> writes, long[] regionOf) {
        List<Route> routes = new ArrayList<>(writes.size());
        lock.lock();
        try {
            for (int i = 0; i < writes.size(); i++) {
                long r = regionOf[i];
                Region reg = regions.computeIfAbsent(r, k -> new Region());
                if (reg.recovering) {
                    if (reg.delayed == null) {
                        reg.delayed = new ArrayDeque<>();
                    }
                    reg.delayed.add(writes.get(i));
                    routes.add(Route.DELAYED);
                    continue;
                }
                reg.pending++;
                reg.idleSince = -1;
                if (!log.inSync(r)) {
                    routes.add(Route.DEFAULT_LEG);
                } else {
                    log.mark(r);
                    routes.add(Route.ALL_LEGS);
                }
            }
        } finally {
            lock.unlock();
        }
        return routes;
    }

    /**
     * Worker, after the batch's log write: the in-sync regions it marked are recorded dirty, so
     * later writes there may take {@link #admitDirect}.
     */
    void logged(long[] regionOf, List<Route> routes) {
        lock.lock();
        try {
            for (int i = 0; i < regionOf.length; i++) {
                Region reg = regions.get(regionOf[i]);
                if (routes.get(i) == Route.ALL_LEGS && reg != null && log.inSync(regionOf[i]) && !log.isClean(regionOf[i])) {
                    reg.logged = true;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Submitting thread ({@code explicit} only): admits a write without the worker if its region
     * is in sync, already recorded dirty by the worker, not being recovered, has no delayed
     * writes, and no recovery runs anywhere in the mirror. False sends it to the worker as before.
     * The write counts as in flight here exactly as {@link #admit}'s do, so lazy clearing and
     * recovery see it.
     */
    boolean admitDirect(long r) {
        lock.lock();
        try {
            Region reg = regions.get(r);
            if (recovering > 0 || reg == null || !reg.logged || reg.recovering || reg.delayed != null
                    || !log.inSync(r)) {
                return false;
            }
            reg.pending++;
            reg.idleSince = -1;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Worker, at suspend: no region counts as recorded dirty until the worker marks it again. */
    void forgetLogged() {
        lock.lock();
        try {
            regions.values().forEach(reg -> reg.logged = false);
        } finally {
            lock.unlock();
        }
    }

    /** Any thread: a write admitted to region {@code r} ended; {@code diverged} if the legs may now differ there. */
    AfterWrite writeDone(long r, boolean diverged, long now) {
        lock.lock();
        try {
            Region reg = regions.get(r);
            if (diverged) {
                log.setInSync(r, false);
                outOfSyncSince = Math.min(outOfSyncSince, r);
                reg.logged = false;
            }
            if (--reg.pending > 0) {
                return AfterWrite.BUSY;
            }
            if (reg.recovering) {
                return AfterWrite.QUIESCED;
            }
            reg.idleSince = now;
            idle.add(new IdleMark(r, now));
            return AfterWrite.IDLE;
        } finally {
            lock.unlock();
        }
    }

    /* ---- Recovery ---- */

    /** Worker: takes the next out-of-sync region at or after {@code from} for recovery, or null. */
    Recovery startRecovery(long from) {
        lock.lock();
        try {
            long r = log.nextOutOfSync(from);
            while (r >= 0) {
                Region reg = regions.computeIfAbsent(r, k -> new Region());
                if (!reg.recovering) {
                    reg.recovering = true;
                    reg.logged = false;
                    recovering++;
                    return new Recovery(r, reg.pending == 0);
                }
                r = r + 1 < log.regionCount ? log.nextOutOfSync(r + 1) : -1;
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Worker: a recovery ended; returns the writes that waited for it, oldest first. */
    List<Bio> endRecovery(long r, boolean synced) {
        lock.lock();
        try {
            Region reg = regions.get(r);
            reg.recovering = false;
            recovering--;
            if (synced) {
                log.setInSync(r, true);
            }
            List<Bio> out = reg.delayed == null ? List.of() : List.copyOf(reg.delayed);
            reg.delayed = null;
            dropIfIdle(r, reg);
            return out;
        } finally {
            lock.unlock();
        }
    }

    int recovering() {
        lock.lock();
        try {
            return recovering;
        } finally {
            lock.unlock();
        }
    }

    /** Worker: the lowest region taken out of sync by a failed write since the last call, or -1. */
    long takeOutOfSyncSince() {
        lock.lock();
        try {
            long r = outOfSyncSince;
            outOfSyncSince = Long.MAX_VALUE;
            return r == Long.MAX_VALUE ? -1 : r;
        } finally {
            lock.unlock();
        }
    }

    /* ---- Lazy clearing ---- */

    /**
     * Worker: in-sync regions quiet for at least {@code quietNanos} (every quiet one if
     * {@code all}) that the log still has dirty, to be recorded clean.
     */
    List<Long> clearable(long now, long quietNanos, boolean all) {
        List<Long> out = new ArrayList<>();
        lock.lock();
        try {
            IdleMark m;
            while ((m = idle.peek()) != null && (all || now - m.since >= quietNanos)) {
                idle.poll();
                Region reg = regions.get(m.region);
                if (reg == null || reg.idleSince != m.since || reg.pending > 0 || reg.recovering) {
                    continue; // busy again or gone since: a later mark stands for it
                }
                if (log.inSync(m.region) && !log.isClean(m.region)) {
                    reg.logged = false; // being recorded clean: writes go through the worker again
                    out.add(m.region);
                } else {
                    dropIfIdle(m.region, reg);
                }
            }
        } finally {
            lock.unlock();
        }
        return out;
    }

    /** Worker: the regions were recorded clean; forget the ones with nothing else going on. */
    void cleared(List<Long> done) {
        lock.lock();
        try {
            for (long r : done) {
                Region reg = regions.get(r);
                if (reg != null) {
                    dropIfIdle(r, reg);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** When the oldest quiet region becomes clearable, or -1 if none is quiet. */
    long nextQuietSince() {
        lock.lock();
        try {
            IdleMark m = idle.peek();
            return m == null ? -1 : m.since;
        } finally {
            lock.unlock();
        }
    }

    @GuardedBy("lock")
    private void dropIfIdle(long r, Region reg) {
        if (reg.pending == 0 && !reg.recovering && reg.delayed == null
                && (log.isClean(r) || !log.inSync(r))) {
            regions.remove(r);
        }
    }

    /* ---- Observation ---- */

    RegionState state(long r) {
        lock.lock();
        try {
            Region reg = regions.get(r);
            if (reg != null && reg.recovering) {
                return RegionState.RECOVERING;
            }
            if (!log.inSync(r)) {
                return RegionState.NOSYNC;
            }
            return !log.isClean(r) || (reg != null && reg.pending > 0) ? RegionState.DIRTY : RegionState.CLEAN;
        } finally {
            lock.unlock();
        }
    }

    /** Writes waiting for recoveries to end. */
    int delayedWrites() {
        lock.lock();
        try {
            return regions.values().stream().mapToInt(r -> r.delayed == null ? 0 : r.delayed.size()).sum();
        } finally {
            lock.unlock();
        }
    }
}
