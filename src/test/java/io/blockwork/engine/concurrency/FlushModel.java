package io.blockwork.engine.concurrency;

import io.blockwork.engine.block.CacheFlusher;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.MediaFlush;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A disk reduced to what the flush contract is about: each write sets a bit in the volatile cache,
 * and a media flush copies the cache into the durable bits. The only operation writes, flushes,
 * and reports whether its write is durable, which the contract says must always be true.
 */
public final class FlushModel {
    private final AtomicLong cache = new AtomicLong();
    private final AtomicLong durable = new AtomicLong();
    private final AtomicInteger nextBit = new AtomicInteger();
    private final CacheFlusher flusher;

    public FlushModel(Function<MediaFlush, CacheFlusher> strategy) {
        this.flusher = strategy.apply(done -> {
            long snapshot = cache.get();
            durable.accumulateAndGet(snapshot, (a, b) -> a | b);
            done.accept(IoStatus.OK);
        });
    }

    public boolean writeThenFlush() {
        long bit = 1L << nextBit.getAndIncrement();
        cache.accumulateAndGet(bit, (a, b) -> a | b);
        Completion c = new Completion();
        flusher.flush(c);
        c.await();
        return (durable.get() & bit) != 0;
    }

    private static final class Completion implements Consumer<IoStatus> {
        private final Thread waiter = Thread.currentThread();
        private volatile boolean done;

        @Override
        public void accept(IoStatus status) {
            done = true;
            LockSupport.unpark(waiter);
        }

        void await() {
            while (!done) {
                LockSupport.park();
            }
        }
    }
}
