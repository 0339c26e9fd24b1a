package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.PassThroughDevice;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/** Passes every bio on to a device below, showing it to an observer first: to record order or to strike at a chosen moment. */
final class TapDevice extends PassThroughDevice {

    private final Consumer<Bio> observer;

    TapDevice(String name, BlockDevice below, Consumer<Bio> observer) {
        super(name, below);
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
        super.dispatch(bio);
    }
}
