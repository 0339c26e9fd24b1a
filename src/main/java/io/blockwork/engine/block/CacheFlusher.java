package io.blockwork.engine.block;

import java.util.function.Consumer;

/**
 * Turns flush requests on a device with a volatile cache into media flushes; see
 * {@link SerialFlusher} for the strategies.
 */
public interface CacheFlusher {

    /** Requests a flush; {@code waiter} hears its outcome once a covering media flush ends. */
    void flush(Consumer<IoStatus> waiter);

    /** Flush requests received. */
    long requests();

    /** Media flushes actually performed. */
    long mediaFlushes();

    static CacheFlusher create(FlushMerging mode, MediaFlush media) {
        return new SerialFlusher(media, mode);
    }
}
