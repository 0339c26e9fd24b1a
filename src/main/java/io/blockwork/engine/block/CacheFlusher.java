package io.blockwork.engine.block;

import java.util.function.Consumer;

/**
 * Turns flush requests on a device with a volatile cache into media flushes. The strategies:
 * {@link MergingFlusher} (blk-flush's rule, the default) and {@link UnmergedFlusher}, which issues
 * one media flush per request and exists for the benchmark.
 */
public interface CacheFlusher {

    /** Requests a flush; {@code waiter} hears its outcome once a covering media flush ends. */
    void flush(Consumer<IoStatus> waiter);

    /** Flush requests received. */
    long requests();

    /** Media flushes actually performed. */
    long mediaFlushes();

    static CacheFlusher create(FlushMerging mode, MediaFlush media) {
        return switch (mode) {
            case MERGED -> new MergingFlusher(media);
            case OFF -> new UnmergedFlusher(media);
        };
    }
}
