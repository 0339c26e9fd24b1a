package io.blockwork.engine.block;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/** Strategy {@code off}: every flush request costs a media flush of its own. */
public final class UnmergedFlusher implements CacheFlusher {
    private final MediaFlush media;
    private final LongAdder requests = new LongAdder();

    public UnmergedFlusher(MediaFlush media) {
        this.media = media;
    }

    @Override
    public void flush(Consumer<IoStatus> waiter) {
        requests.increment();
        media.start(waiter);
    }

    @Override
    public long requests() {
        return requests.sum();
    }

    @Override
    public long mediaFlushes() {
        return requests.sum();
    }
}
