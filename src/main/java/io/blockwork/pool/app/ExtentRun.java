package io.blockwork.pool.app;

/**
 * A run of consecutive extents: {@code start} to {@code start + count - 1}.
 *
 * @param start first extent
 * @param count extents in the run, at least one
 */
public record ExtentRun(long start, long count) {

    public ExtentRun {
        if (start < 0 || count <= 0) {
            throw new IllegalArgumentException("bad extent run " + start + "+" + count);
        }
    }

    /** The extent just past the run. */
    public long end() {
        return start + count;
    }
}
