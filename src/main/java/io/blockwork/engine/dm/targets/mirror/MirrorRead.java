package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;

/**
 * A read: straight from the map call to one leg (reads do not wait for the worker), and on an
 * error the leg is marked and the read moves on to another leg that may hold the data, so the
 * caller sees an error only when none is left (the kernel's read_callback and end_io retry).
 */
final class MirrorRead implements BioCallback {

    private final MirrorSet set;
    private final Bio clone;
    private final long region;
    private long tried;
    private Leg leg;

    MirrorRead(MirrorSet set, Bio clone) {
        this.set = set;
        this.clone = clone;
        this.region = set.regionOf(clone.offset());
    }

    /** Sends the read to the next leg, or fails it if no leg may serve it. */
    void start() {
        leg = set.readLeg(region, tried);
        if (leg == null) {
            clone.endio(IoStatus.IO_ERROR);
            return;
        }
        tried |= 1L << leg.index;
        leg.dev.submit(clone.derive(BioOp.READ, leg.offsetBytes + clone.offset(), clone.length(), 0,
                BioFlags.NONE, this));
    }

    @Override
    public void done(Bio child) {
        IoStatus s = child.status();
        if (s.ok()) {
            clone.endio();
        } else if (s == IoStatus.INVALID || s == IoStatus.NOT_SUPPORTED) {
            clone.endio(s); // the request, not the leg, is at fault
        } else {
            set.fail(leg, Leg.Failure.READ);
            start();
        }
    }
}
