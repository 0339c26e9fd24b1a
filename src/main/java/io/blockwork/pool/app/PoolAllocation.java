package io.blockwork.pool.app;

/**
 * One run of a classic pool's allocated extents and what holds it, as {@code lvs -a --segments}
 * lists a volume group's hidden and visible volumes.
 *
 * @param owner the owner's name: a volume, a snapshot (its COW space), a thin pool (its carved
 *        data or metadata space)
 * @param kind what the extents hold
 * @param segment where they lie in the owner's extent space and in the pool
 */
public record PoolAllocation(String owner, ExtentOwner.Kind kind, Segment segment) {
}
