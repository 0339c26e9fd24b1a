package io.blockwork.engine.concurrency;

import io.blockwork.engine.block.CacheFlusher;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.MediaFlush;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Deliberately broken: a request arriving while a media flush runs joins that flush, which may
 * already have copied the cache without its write. The model checker must reject it.
 */
final class PiggybackFlusher implements CacheFlusher {
    private final MediaFlush media;
    /** Guarded by {@code this}. */
    private List<Consumer<IoStatus>> running;

    PiggybackFlusher(MediaFlush media) {
        this.media = media;
    }

    @Override
    public void flush(Consumer<IoStatus> waiter) {
        synchronized (this) {
            if (running != null) {
                running.add(waiter);
                return;
            }
            running = new ArrayList<>(List.of(waiter));
        }
        media.start(status -> {
            List<Consumer<IoStatus>> served;
            synchronized (this) {
                served = running;
                running = null;
            }
            served.forEach(w -> w.accept(status));
        });
    }

    @Override
    public long requests() {
        return 0;
    }

    @Override
    public long mediaFlushes() {
        return 0;
    }
}
