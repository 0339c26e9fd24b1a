package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * One write (or discard, write-zeroes) the worker sends to its legs: a clone per leg, the
 * original completing after the last (the kernel's do_write and write_callback).
 *
 * <p>Leg bios carry the write's FUA but never SYNC: kmirrord submitted without it, which is what
 * left them in a plugged queue under strategy {@code timer}. When every leg has answered, failed
 * legs are marked, the region is taken out of sync if they failed (the legs may now differ
 * there, as they may if some legs are out of service), the region hash hears that the write ended, and the original completes: OK if every
 * leg took it, or with {@code handle_errors} if at least one did; otherwise IO_ERROR.
 */
final class MirrorWrite {

    private final MirrorSet set;
    private final MirrorWorker worker;
    private final Bio clone;
    private final long region;
    private final List<Leg> legs;
    private final IoStatus[] results;
    private final AtomicInteger remaining;

    MirrorWrite(MirrorSet set, MirrorWorker worker, Bio clone, long region, List<Leg> legs) {
        this.set = set;
        this.worker = worker;
        this.clone = clone;
        this.region = region;
        this.legs = legs;
        this.results = new IoStatus[legs.size()];
        this.remaining = new AtomicInteger(legs.size());
    }

    /** Worker: sends a clone to every leg through the worker's batch dispatch. */
    void submit(BatchDispatch dispatch) {
        submit((dev, bio) -> dispatch.submit(dev, bio));
    }

    /** Submitting thread (the worker's fast path): sends a clone to every leg at once. */
    void submitDirect() {
        submit(BlockDevice::submit);
    }

    private void submit(BiConsumer<BlockDevice, Bio> send) {
        if (legs.isEmpty()) {
            worker.writeEnded(region, false); // no leg may take it: nothing was written
            clone.endio(IoStatus.IO_ERROR);
            return;
        }
        for (int i = 0; i < legs.size(); i++) {
            Leg leg = legs.get(i);
            int index = i;
            Bio child = clone.derive(clone.op(), leg.offsetBytes + clone.offset(), clone.length(), 0,
                    clone.flags().withSync(false), b -> legDone(index, b.status()));
            send.accept(leg.dev, child);
        }
    }

    private void legDone(int index, IoStatus status) {
        results[index] = status; // published to the finisher by the decrement below
        if (remaining.decrementAndGet() == 0) {
            finish();
        }
    }

    private void finish() {
        int ok = 0;
        IoStatus firstError = null;
        for (int i = 0; i < results.length; i++) {
            if (results[i].ok()) {
                ok++;
            } else {
                if (firstError == null) {
                    firstError = results[i];
                }
                if (results[i] != IoStatus.INVALID && results[i] != IoStatus.NOT_SUPPORTED) {
                    set.fail(legs.get(i), Leg.Failure.WRITE);
                }
            }
        }
        // Legs left out of service (handle_errors) miss this write as surely as legs that failed it.
        boolean diverged = ok < set.legs.size();
        IoStatus status = ok == results.length || (set.handleErrors && ok > 0) ? IoStatus.OK : firstError;
        worker.writeEnded(region, diverged);
        clone.endio(status);
    }
}
