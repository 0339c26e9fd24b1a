package io.blockwork.service.pool;

/**
 * One run of an owner's extents: its extents {@code ownerStart ..} lie at the pool's extents
 * {@code poolStart ..}, {@code count} of them. An owner's segments, in owner order, cover its extent
 * space from 0 without gaps.
 */
public record Segment(long ownerStart, long poolStart, long count) {

    public long ownerEnd() {
        return ownerStart + count;
    }
}
