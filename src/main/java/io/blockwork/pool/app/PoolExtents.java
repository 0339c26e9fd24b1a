package io.blockwork.pool.app;

import io.blockwork.pool.store.PoolEntity;
import io.blockwork.pool.store.PoolSegmentEntity;
import io.blockwork.pool.store.PoolSegmentRepository;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * The allocator of pool extents, over the allocation map in H2 ({@code pool_segments}). Any owner
 * ({@link ExtentOwner}: a volume's data, a snapshot's copy-on-write space) grows and shrinks its
 * own extent space from the end; where its extents lie in the pool is {@link ExtentMap}'s choice.
 *
 * <p>Call it inside a management operation: its changes are part of that operation's transaction,
 * so a failure later in the operation frees (or restores) the extents again.
 */
@Component
public class PoolExtents {

    private final PoolSegmentRepository segments;

    PoolExtents(PoolSegmentRepository segments) {
        this.segments = segments;
    }

    /** A run of a pool's allocated extents and its owner. */
    public record OwnedSegment(ExtentOwner owner, Segment segment) {}

    /** Every allocated run of the pool, in pool order, with its owner. */
    public List<OwnedSegment> allocated(PoolEntity pool) {
        return segments.findAllByPoolIdOrderByPoolStartAsc(pool.getId()).stream()
                .map(s -> new OwnedSegment(new ExtentOwner(ExtentOwner.Kind.ofTag(s.getOwnerKind()), s.getOwnerId()),
                        segment(s)))
                .toList();
    }

    /** The pool's allocation map now. */
    public ExtentMap map(PoolEntity pool) {
        return map(pool, allocated(pool));
    }

    /** The allocation map of {@code pool} whose runs are {@code allocated} (read once for a view). */
    public static ExtentMap map(PoolEntity pool, List<OwnedSegment> allocated) {
        return ExtentMap.of(pool.getExtentCount(), allocated.stream()
                .map(a -> new ExtentRun(a.segment().poolStart(), a.segment().count())).toList());
    }

    /** The owner's segments in its own extent order. */
    public List<Segment> segments(ExtentOwner owner) {
        return records(owner).stream().map(PoolExtents::segment).toList();
    }

    /** Every owner with extents in the pool. */
    public List<ExtentOwner> owners(PoolEntity pool) {
        return allocated(pool).stream().map(OwnedSegment::owner).distinct().toList();
    }

    /**
     * Gives {@code owner} {@code count} more extents of {@code pool}, at the end of its extent
     * space, and returns all its segments.
     *
     * @throws ProblemException insufficient-space (naming what is free) if the pool has fewer free
     *         extents; nothing is allocated then
     */
    public List<Segment> allocate(PoolEntity pool, ExtentOwner owner, long count) {
        List<PoolSegmentEntity> mine = records(owner);
        PoolSegmentEntity last = mine.isEmpty() ? null : mine.getLast();
        long owned = last == null ? 0 : last.getOwnerStart() + last.getExtentCount();
        ExtentMap map = map(pool);
        List<ExtentRun> runs = map.place(count, last == null ? -1 : last.getPoolStart() + last.getExtentCount())
                .orElseThrow(() -> insufficientSpace(pool, map, count));
        for (ExtentRun r : runs) {
            if (last != null && last.getPoolStart() + last.getExtentCount() == r.start()) {
                last.setExtentCount(last.getExtentCount() + r.count());
                segments.save(last);
            } else {
                last = segments.save(new PoolSegmentEntity(pool.getId(), owner.kind().tag(), owner.id(), owned, r.start(),
                        r.count()));
            }
            owned += r.count();
        }
        segments.flush();
        return segments(owner);
    }

    /** Keeps the first {@code keep} extents of {@code owner} and frees the rest; returns what it keeps. */
    public List<Segment> truncate(ExtentOwner owner, long keep) {
        for (PoolSegmentEntity s : records(owner)) {
            if (s.getOwnerStart() >= keep) {
                segments.delete(s);
            } else if (s.getOwnerStart() + s.getExtentCount() > keep) {
                s.setExtentCount(keep - s.getOwnerStart());
                segments.save(s);
            }
        }
        segments.flush();
        return segments(owner);
    }

    /** Frees every extent of {@code owner}. */
    public void release(ExtentOwner owner) {
        truncate(owner, 0);
    }

    private List<PoolSegmentEntity> records(ExtentOwner owner) {
        return segments.findAllByOwnerKindAndOwnerIdOrderByOwnerStartAsc(owner.kind().tag(), owner.id());
    }

    private static Segment segment(PoolSegmentEntity s) {
        return new Segment(s.getOwnerStart(), s.getPoolStart(), s.getExtentCount());
    }

    private static ProblemException insufficientSpace(PoolEntity pool, ExtentMap map, long needed) {
        long es = pool.getExtentSizeBytes();
        return new ProblemException(Problem.INSUFFICIENT_SPACE, "pool " + pool.getName() + " has not enough free space for "
                + ByteUnits.human(needed * es) + " (" + ByteUnits.extents(needed, es) + "): free: "
                + ByteUnits.human(map.freeExtents() * es) + " (" + ByteUnits.extents(map.freeExtents(), es) + ")")
                .atField("size")
                .with("pool", pool.getName())
                .with("freeBytes", map.freeExtents() * es)
                .with("freeExtents", map.freeExtents())
                .with("extentSizeBytes", es)
                .with("neededExtents", needed)
                .with("neededBytes", needed * es);
    }
}
