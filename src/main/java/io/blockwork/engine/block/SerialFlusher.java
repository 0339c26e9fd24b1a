package io.blockwork.engine.block;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * A disk's flush machinery. A device runs one cache flush at a time (a drive's FLUSH CACHE is not
 * a queued command), so media flushes here are serial; the strategy decides how many waiting
 * requests one media flush serves.
 *
 * <p>{@link FlushMerging#MERGED}, blk-flush's rule and the default: while a media flush runs, new
 * requests wait in {@link #pending}. When it ends, its own requests complete and one new media
 * flush starts for everything that arrived meanwhile. So a request is only ever completed by a
 * media flush that <em>started after it arrived</em> (never by one already running, which may
 * have missed its writes), and any number of concurrent requests cost at most two media flushes.
 *
 * <p>{@link FlushMerging#OFF}: every request waits its turn for a media flush of its own, the
 * behaviour the merging was invented to fix, kept for the benchmark.
 *
 * <p>A media flush may complete inline, inside {@link MediaFlush#start}; the driving loop then
 * continues with the next batch instead of recursing, so a long run of inline flushes cannot
 * overflow the stack.
 */
public final class SerialFlusher implements CacheFlusher {

    private final MediaFlush media;
    private final boolean merge;
    private final Object lock = new Object();
    /** A media flush is in progress. */
    @GuardedBy("lock")
    private boolean running;
    /** Requests that arrived while the current media flush ran. */
    @GuardedBy("lock")
    private List<Consumer<IoStatus>> pending = new ArrayList<>();

    private final LongAdder requests = new LongAdder();
    private final LongAdder mediaFlushes = new LongAdder();

    public SerialFlusher(MediaFlush media, FlushMerging mode) {
        this.media = media;
        this.merge = mode == FlushMerging.MERGED;
    }

    @Override
    public void flush(Consumer<IoStatus> waiter) {
        requests.increment();
        List<Consumer<IoStatus>> batch;
        synchronized (lock) {
            pending.add(waiter);
            if (running) {
                return;
            }
            running = true;
            batch = takePending();
        }
        drive(batch);
    }

    private void drive(List<Consumer<IoStatus>> batch) {
        while (batch != null) {
            Round round = new Round(batch);
            mediaFlushes.increment();
            media.start(round);
            batch = round.leaveStart();
        }
    }

    /** Ends a round: the next batch if requests arrived meanwhile, else null and not running. */
    private List<Consumer<IoStatus>> nextBatch() {
        synchronized (lock) {
            if (pending.isEmpty()) {
                running = false;
                return null;
            }
            return takePending();
        }
    }

    /** The requests the next media flush serves. */
    @GuardedBy("lock")
    private List<Consumer<IoStatus>> takePending() {
        if (!merge) {
            return List.of(pending.removeFirst());
        }
        List<Consumer<IoStatus>> out = pending;
        pending = new ArrayList<>();
        return out;
    }

    @Override
    public long requests() {
        return requests.sum();
    }

    @Override
    public long mediaFlushes() {
        return mediaFlushes.sum();
    }

    /** One media flush and the requests it serves. */
    private final class Round implements Consumer<IoStatus> {
        private static final int STARTING = 0;
        private static final int DONE_INLINE = 1;
        private static final int ASYNC = 2;

        private final List<Consumer<IoStatus>> batch;
        private final AtomicInteger state = new AtomicInteger(STARTING);
        private volatile List<Consumer<IoStatus>> next;

        Round(List<Consumer<IoStatus>> batch) {
            this.batch = batch;
        }

        @Override
        public void accept(IoStatus status) {
            List<Consumer<IoStatus>> successor = nextBatch();
            next = successor;
            if (state.compareAndSet(STARTING, DONE_INLINE)) {
                // inside media.start: the driving loop starts the successor once this returns
                complete(status);
                return;
            }
            // Ended on another thread (the disk's timer). Start the next media flush before
            // waking this round's waiters: waking a few dozen threads takes long enough to leave
            // the device idle, and the successor's requests gain nothing from waiting for it.
            next = null;
            try {
                drive(successor);
            } finally {
                complete(status);
            }
        }

        private void complete(IoStatus status) {
            for (Consumer<IoStatus> waiter : batch) {
                waiter.accept(status);
            }
        }

        /** Called when {@code media.start} returns: the batch to drive next if the flush ended inline. */
        List<Consumer<IoStatus>> leaveStart() {
            return state.compareAndSet(STARTING, ASYNC) ? null : next;
        }
    }
}
