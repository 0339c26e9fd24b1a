package io.blockwork.engine.block;

import java.util.ArrayList;
import java.util.List;

/**
 * Passes bios on, except those it is told to keep, until {@link #release}: a test holds a write at
 * a chosen moment to order what happens around it.
 */
public final class HoldingDevice extends PassThroughDevice {

    private final List<Bio> held = new ArrayList<>();
    /** Guarded by this: keep every bio. */
    private boolean holding;
    /** Guarded by this: keep the next write only. */
    private boolean holdNextWrite;

    public HoldingDevice(BlockDevice below) {
        super(below.name(), below);
    }

    /** Keeps every bio from now until {@link #release}. */
    public synchronized void hold() {
        holding = true;
    }

    /** Keeps the next write (other bios pass) until {@link #release}. */
    public synchronized void holdNextWrite() {
        holdNextWrite = true;
    }

    public synchronized int held() {
        return held.size();
    }

    /** Stops holding and passes on what was kept, in order. */
    public void release() {
        List<Bio> go;
        synchronized (this) {
            holding = false;
            holdNextWrite = false;
            go = new ArrayList<>(held);
            held.clear();
        }
        go.forEach(super::dispatch);
    }

    @Override
    protected void dispatch(Bio bio) {
        synchronized (this) {
            if (holding || (holdNextWrite && bio.op() == BioOp.WRITE)) {
                holdNextWrite = false;
                held.add(bio);
                return;
            }
        }
        super.dispatch(bio);
    }
}
