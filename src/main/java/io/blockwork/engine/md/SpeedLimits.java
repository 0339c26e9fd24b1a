package io.blockwork.engine.md;

/**
 * Resync and recovery speed bounds in KiB/s, md's {@code sync_speed_min}/{@code sync_speed_max}.
 * The daemon never goes faster than {@code max}; while the array also serves normal I/O it holds
 * back to {@code min}, so that user I/O comes first but the rebuild always progresses.
 */
public record SpeedLimits(long minKiBps, long maxKiBps) {

    /** md's defaults, {@code /proc/sys/dev/raid/speed_limit_min} and {@code _max}. */
    public static final SpeedLimits DEFAULT = new SpeedLimits(1_000, 200_000);
    /** No practical limit, for benchmarks and tests. */
    public static final SpeedLimits UNLIMITED = new SpeedLimits(Long.MAX_VALUE / 4096, Long.MAX_VALUE / 4096);

    public SpeedLimits {
        if (minKiBps < 1) {
            throw new MdArgumentException("speed.min", "must be at least 1 KiB/s, got " + minKiBps);
        }
        if (maxKiBps < minKiBps) {
            throw new MdArgumentException("speed.max", "must not be below speed.min (" + minKiBps + "), got " + maxKiBps);
        }
    }
}
