package io.blockwork.engine.block;

/**
 * A device's request counters since it was created, as /proc/diskstats has them.
 *
 * @param flushes empty flushes plus writes carrying PREFLUSH
 * @param errors requests that completed with an error status (refused ones included)
 * @param inFlight requests submitted and not yet completed, at the moment of the snapshot
 */
public record IoCounters(long reads, long writes, long flushes, long discards,
                         long readBytes, long writtenBytes, long errors, long inFlight) {
    public static final IoCounters ZERO = new IoCounters(0, 0, 0, 0, 0, 0, 0, 0);
}
