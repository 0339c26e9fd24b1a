package io.blockwork.engine.block;

/**
 * The block core's front door, shared by every device: geometry checks, request accounting and
 * splitting happen here, once, so that a device implementation only ever sees bios that fit its
 * {@link DeviceLimits} (SPDK's rule: the core splits, the level asserts).
 *
 * <p>PREFLUSH is handled here for every device, by the one rule of {@link Preflush}: an empty
 * flush through {@link #dispatch}, then, once it completed, the data without PREFLUSH. Splitting
 * follows the kernel: pieces are chained children of the original bio, so it completes after its
 * last piece and carries the first error.
 */
public abstract class AbstractBlockDevice implements BlockDevice {

    private volatile String name;
    /** Counted at submission here; completions count themselves (errors included) through the bio. */
    private final IoStats stats = new IoStats();

    protected AbstractBlockDevice(String name) {
        this.name = name;
    }

    @Override
    public final String name() {
        return name;
    }

    /** Renames the device; callers own uniqueness (the service's registry). */
    public void rename(String newName) {
        this.name = newName;
    }

    @Override
    public IoCounters counters() {
        return stats.snapshot();
    }

    @Override
    public IoStats stats() {
        return stats;
    }

    @Override
    public final void submit(Bio bio) {
        stats.start(bio);
        if (!fits(bio)) {
            bio.endio(IoStatus.INVALID);
            return;
        }
        stats.submitted(bio);
        if (bio.preflush() && bio.op() != BioOp.FLUSH) {
            Preflush.submit(bio, this::dispatch, this::dispatchFitting);
        } else {
            dispatchFitting(bio);
        }
    }

    /** Dispatches a bio without PREFLUSH, split first if it does not fit. */
    private void dispatchFitting(Bio bio) {
        if (bio.op().hasRange() && bio.length() > maxPieceAt(bio.op(), bio.offset())) {
            splitAndDispatch(bio);
        } else {
            dispatch(bio);
        }
    }

    /**
     * Handles a bio that fits the limits: inside the device, aligned, and not crossing a boundary;
     * an empty FLUSH, or a data request without PREFLUSH. Must not block; ends the bio (or hands it
     * on) exactly once.
     */
    protected abstract void dispatch(Bio bio);

    private boolean fits(Bio bio) {
        if (!bio.op().hasRange()) {
            return true;
        }
        long lbs = limits().logicalBlockSize();
        long size = sizeBytes();
        return bio.length() > 0
                && (bio.offset() | bio.length()) % lbs == 0
                && bio.offset() <= size
                && bio.length() <= size - bio.offset();
    }

    private long maxPieceAt(BioOp op, long offset) {
        DeviceLimits l = limits();
        if (op.hasData()) {
            return l.maxBytesAt(offset);
        }
        return l.boundaryBytes() == 0 ? Long.MAX_VALUE : l.boundaryBytes() - offset % l.boundaryBytes();
    }

    private void splitAndDispatch(Bio bio) {
        long done = 0;
        while (done < bio.length()) {
            long at = bio.offset() + done;
            long len = Math.min(bio.length() - done, maxPieceAt(bio.op(), at));
            dispatch(bio.chainChild(bio.op(), at, len, done, bio.flags()));
            done += len;
        }
        bio.endio();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + "]";
    }
}
