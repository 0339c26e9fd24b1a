package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.dm.TargetContext;
import java.util.ArrayList;
import java.util.List;

/**
 * What the mirror's I/O paths share (the kernel's {@code struct mirror_set}): the legs, the
 * region log and region hash, the features, and the default leg — the one recovery copies from
 * and out-of-sync regions are read from and written to.
 *
 * <p>Failure policy ({@link #fail}, the kernel's fail_mirror): every error is counted on its leg,
 * and a leg with any error is no longer read from. With {@code handle_errors}, a leg that failed
 * a write, flush or recovery copy takes no more writes either, the failure raises a dm event,
 * and if it was the default leg while the whole mirror was in sync another healthy leg becomes
 * the default. Without it, writes keep going to every leg and the error reaches the caller.
 */
final class MirrorSet {

    final List<Leg> legs;
    final DirtyLog log;
    final RegionHash hash;
    final boolean handleErrors;
    final TargetContext ti;
    private volatile int defaultLeg;
    /** Recovery bytes per second, 0 for no limit: the {@code io_throttle} feature and message. */
    private volatile long throttle;

    MirrorSet(List<Leg> legs, DirtyLog log, boolean handleErrors, long throttle, TargetContext ti) {
        this.legs = List.copyOf(legs);
        this.log = log;
        this.hash = new RegionHash(log);
        this.handleErrors = handleErrors;
        this.throttle = throttle;
        this.ti = ti;
    }

    long regionOf(long targetOffset) {
        return targetOffset / log.regionBytes;
    }

    Leg defaultLeg() {
        return legs.get(defaultLeg);
    }

    long throttle() {
        return throttle;
    }

    void throttle(long bytesPerSecond) {
        throttle = bytesPerSecond;
    }

    /** Legs a write goes to: every leg, or with {@code handle_errors} those that have not lost writes. */
    List<Leg> writableLegs() {
        if (!handleErrors) {
            return legs;
        }
        List<Leg> out = new ArrayList<>(legs.size());
        for (Leg l : legs) {
            if (!l.lostWrites()) {
                out.add(l);
            }
        }
        return out;
    }

    /** Legs a recovery copies onto from {@code source}. */
    List<Leg> recoveryTargets(Leg source) {
        List<Leg> out = new ArrayList<>(writableLegs());
        out.remove(source);
        return out;
    }

    /**
     * The leg a read of region {@code r} goes to, skipping legs in {@code triedMask}, or null. In
     * sync: legs are balanced by region (region r starts at leg r mod n) and any healthy leg will
     * do; out of sync: only a healthy default leg holds the data.
     */
    Leg readLeg(long r, long triedMask) {
        if (!log.inSync(r)) {
            Leg d = defaultLeg();
            return d.healthy() && (triedMask & (1L << d.index)) == 0 ? d : null;
        }
        int n = legs.size();
        int first = (int) (r % n);
        for (int k = 0; k < n; k++) {
            Leg l = legs.get((first + k) % n);
            if (l.healthy() && (triedMask & (1L << l.index)) == 0) {
                return l;
            }
        }
        return null;
    }

    /** Records {@code failure} on {@code leg}; see the class comment. */
    void fail(Leg leg, Leg.Failure failure) {
        // Whether the legs agreed before this failure (dm-raid1's ms->in_sync), read before the
        // leg is marked: other writes that fail on it too find it marked, take their regions out
        // of sync and may do so before this thread goes on; read after, that divergence (the new
        // data is on the other legs) kept the failed leg as the default, and writes to those
        // regions, which go to the default leg only, failed.
        boolean agreed = log.allInSync();
        if (!leg.fail(failure) || !handleErrors) {
            return;
        }
        if (leg.index == defaultLeg && agreed) {
            for (Leg l : legs) {
                if (l.healthy()) {
                    defaultLeg = l.index;
                    break;
                }
            }
        }
        ti.triggerEvent();
    }
}
