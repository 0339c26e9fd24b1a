package io.blockwork.engine.copy;

/**
 * A token bucket of bytes per second, holding at most one second's worth. Not thread-safe: one
 * copier's worker owns it.
 */
final class Throttle {
    private volatile long bytesPerSecond;
    private double tokens;
    private long lastNanos;

    Throttle(long bytesPerSecond, long nowNanos) {
        this.bytesPerSecond = bytesPerSecond;
        this.lastNanos = nowNanos;
    }

    /** 0 means no limit. */
    void rate(long newBytesPerSecond) {
        this.bytesPerSecond = newBytesPerSecond;
    }

    long rate() {
        return bytesPerSecond;
    }

    /** Nanoseconds to wait before {@code bytes} may go; 0 if they may go now (then they are taken). */
    long acquire(long bytes, long nowNanos) {
        long rate = bytesPerSecond;
        if (rate <= 0) {
            return 0;
        }
        tokens = Math.min(rate, tokens + (nowNanos - lastNanos) * (rate / 1e9));
        lastNanos = nowNanos;
        if (tokens >= bytes || tokens >= rate) {
            tokens -= bytes;
            return 0;
        }
        return (long) Math.ceil((bytes - tokens) / (rate / 1e9));
    }
}
