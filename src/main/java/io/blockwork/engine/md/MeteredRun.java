package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.IoStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A run of writes on an array with metadata: admitted by {@link ArrayMetadata#startWrite} for
 * the member range it touches, each bio then goes through the heads as a derived bio whose
 * completion is held while a member failure is unrecorded; the last one ends the range's write
 * ({@code everyCopy} when no member was missing or failed meanwhile).
 */
final class MeteredRun implements Runnable, BioCallback {
    private final Raid5 level;
    private final List<Bio> parents;
    final long syncStart;
    final long syncEnd;
    private final AtomicInteger remaining;
    private long failuresAtStart;
    private volatile boolean everyCopy = true;

    MeteredRun(Raid5 level, List<Bio> parents) {
        this.level = level;
        this.parents = parents;
        long lo = Long.MAX_VALUE;
        long hi = 0;
        for (Bio b : parents) {
            long[] r = level.memberRange(b.offset(), b.length());
            lo = Math.min(lo, r[0]);
            hi = Math.max(hi, r[1]);
        }
        this.syncStart = lo;
        this.syncEnd = hi;
        this.remaining = new AtomicInteger(parents.size());
    }

    /** Admitted: the bits are durable and the array recorded active. */
    @Override
    public void run() {
        if (level.metadata().failurePending()) {
            level.metadata().afterFailuresRecorded(this);
            return;
        }
        failuresAtStart = level.members.failures();
        if (level.members.degraded() != 0) {
            everyCopy = false;
        }
        List<Bio> derived = new ArrayList<>(parents.size());
        for (Bio p : parents) {
            Bio d = p.derive(p.op(), p.offset(), p.length(), 0, p.flags(), this);
            d.context(p);
            derived.add(d);
        }
        level.attachAndRun(derived);
    }

    /** One bio of the run is done on the members. */
    @Override
    public void done(Bio child) {
        Bio parent = (Bio) child.context();
        IoStatus status = child.status();
        if (!status.ok() || level.members.failures() != failuresAtStart || level.members.degraded() != 0) {
            everyCopy = false;
        }
        if (remaining.decrementAndGet() == 0) {
            level.metadata().endWrite(syncStart, syncEnd - syncStart, everyCopy);
        }
        level.metadata().afterFailuresRecorded(() -> parent.endio(status));
    }
}
