package io.blockwork.nbd;

import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeviceLimits;
import java.util.ArrayList;
import java.util.List;

/**
 * A device that collects {@code batch} bios and then passes them to the device below in reverse
 * order of arrival, so that completions, and replies, come back in reverse: a deterministic way
 * to see out-of-order replies.
 */
final class ReorderingDevice extends AbstractBlockDevice {
    private final BlockDevice lower;
    private final int batch;
    /** Guarded by itself. */
    private final List<Bio> held = new ArrayList<>();

    ReorderingDevice(BlockDevice lower, int batch) {
        super("reorder");
        this.lower = lower;
        this.batch = batch;
    }

    @Override
    protected void dispatch(Bio bio) {
        List<Bio> go = null;
        synchronized (held) {
            held.add(bio);
            if (held.size() == batch) {
                go = new ArrayList<>(held).reversed();
                held.clear();
            }
        }
        if (go != null) {
            for (Bio b : go) {
                lower.submit(b.remap(b.offset()));
                b.endio();
            }
        }
    }

    @Override
    public long sizeBytes() {
        return lower.sizeBytes();
    }

    @Override
    public DeviceLimits limits() {
        return lower.limits();
    }
}
