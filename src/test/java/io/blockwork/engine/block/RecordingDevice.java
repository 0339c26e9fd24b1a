package io.blockwork.engine.block;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A device that records what reaches it and completes each bio with a chosen status. */
public final class RecordingDevice extends AbstractBlockDevice {
    private final long size;
    private final DeviceLimits limits;
    public final List<Bio> seen = Collections.synchronizedList(new ArrayList<>());
    private volatile IoStatus answer = IoStatus.OK;
    private volatile boolean hold;
    public final List<Bio> held = Collections.synchronizedList(new ArrayList<>());

    public RecordingDevice(long size, DeviceLimits limits) {
        super("rec");
        this.size = size;
        this.limits = limits;
    }

    public void answer(IoStatus s) {
        answer = s;
    }

    /** Keep bios instead of completing them, until {@link #release}. */
    public void hold(boolean on) {
        hold = on;
    }

    public void release() {
        List<Bio> copy;
        synchronized (held) {
            copy = new ArrayList<>(held);
            held.clear();
        }
        copy.forEach(b -> b.endio(answer));
    }

    @Override
    protected void dispatch(Bio bio) {
        seen.add(bio);
        if (hold) {
            held.add(bio);
        } else {
            bio.endio(answer);
        }
    }

    @Override
    public long sizeBytes() {
        return size;
    }

    @Override
    public DeviceLimits limits() {
        return limits;
    }
}
