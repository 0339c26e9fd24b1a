package io.blockwork.pool.web;

import io.swagger.v3.oas.annotations.media.Schema;

/** Extents {@code first} to {@code last}, both included (a pool's, or an owner's own). */
@Schema(description = "Extents first to last, both included")
public record ExtentRange(long first, long last) {

    /** The range of {@code count} extents from {@code start}. */
    public static ExtentRange of(long start, long count) {
        return new ExtentRange(start, start + count - 1);
    }
}
