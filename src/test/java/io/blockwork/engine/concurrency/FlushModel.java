package io.blockwork.engine.concurrency;

import io.blockwork.engine.block.CacheFlusher;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.MediaFlush;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A disk reduced to what the flush contract is about: each write sets a bit in the volatile cache,
 * and a media flush copies the cache into the durable bits. The only operation writes, flushes,
 * and reports whether its write is durable, which the contract says must always be true.
 *
 * <p>A media flush either ends inside {@code start} or, {@linkplain #deferred deferred}, covers
 * the cache as it was when it started and ends later on whichever waiting thread gets to it first,
 * as a disk's flush ends on its timer thread.
 */
public final class FlushModel {
    private final AtomicLong cache = new AtomicLong();
    private final AtomicLong durable = new AtomicLong();
    private final AtomicInteger nextBit = new AtomicInteger();
    private final Queue<Runnable> running = new ConcurrentLinkedQueue<>();
    private final boolean deferred;
    private final CacheFlusher flusher;

    public FlushModel(Function<MediaFlush, CacheFlusher> strategy) {
        this(strategy, false);
    }

    private FlushModel(Function<MediaFlush, CacheFlusher> strategy, boolean deferred) {
        this.deferred = deferred;
        this.flusher = strategy.apply(done -> {
            long snapshot = cache.get();
            Runnable end = () -> {
                durable.accumulateAndGet(snapshot, (a, b) -> a | b);
                done.accept(IoStatus.OK);
            };
            if (deferred) {
                running.add(end);
            } else {
                end.run();
            }
        });
    }

    /** A model whose media flushes end after {@code start} returned, on another waiter's thread. */
    public static FlushModel deferred(Function<MediaFlush, CacheFlusher> strategy) {
        return new FlushModel(strategy, true);
    }

    public boolean writeThenFlush() {
        long bit = 1L << nextBit.getAndIncrement();
        cache.accumulateAndGet(bit, (a, b) -> a | b);
        Completion c = new Completion();
        flusher.flush(c);
        if (!deferred) {
            c.await();
        }
        while (!c.done) {
            Runnable end = running.poll();
            if (end != null) {
                end.run();
            } else {
                Thread.onSpinWait();
            }
        }
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

        /** Parks until this request completes; {@code deferred} models only spin, looking for flushes to end. */
        void await() {
            while (!done) {
                LockSupport.park();
            }
        }
    }
}
