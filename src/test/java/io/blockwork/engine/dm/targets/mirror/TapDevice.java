package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeviceLimits;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/** Passes every bio on to a device below, showing it to an observer first: to record order or to strike at a chosen moment. */
final class TapDevice extends AbstractBlockDevice {

    private final BlockDevice below;
    private final Consumer<Bio> observer;

    TapDevice(String name, BlockDevice below, Consumer<Bio> observer) {
        super(name);
        this.below = below;
        this.observer = observer;
    }

    /** A tap that runs {@code action} as the {@code n}-th write (or discard, write-zeroes) goes by. */
    static TapDevice atWrite(String name, BlockDevice below, long n, Runnable action) {
        AtomicLong writes = new AtomicLong();
        return new TapDevice(name, below, bio -> {
            if (bio.op().isWrite() && writes.incrementAndGet() == n) {
                action.run();
            }
        });
    }

    @Override
    protected void dispatch(Bio bio) {
        observer.accept(bio);
        below.submit(bio.remap(bio.offset()));
        bio.endio();
    }

    @Override
    public long sizeBytes() {
        return below.sizeBytes();
    }

    @Override
    public DeviceLimits limits() {
        return below.limits();
    }
}
