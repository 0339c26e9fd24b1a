package io.blockwork.pool.app;

import io.blockwork.engine.block.Counted;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A pool's allocation map at one moment, as free runs, and where a request for extents would go.
 * A plain value: built from the allocated runs, never changed.
 *
 * <p>Placement ({@link #place}), LVM's "contiguous, else anywhere":
 * <ol>
 * <li>if the request may continue an owner's last run in place (the free run starting right after
 *     it holds all of it), there: the owner's segments then merge;</li>
 * <li>else the smallest free run that holds all of it (best fit; the lowest on a tie), from its start;</li>
 * <li>else the free runs in pool order, whole, until the request is covered (the last one in part):
 *     a fragmented pool gives a volume of many segments.</li>
 * </ol>
 */
public final class ExtentMap {

    private final long totalExtents;
    /** Ascending, none adjacent to another. */
    private final List<ExtentRun> free;
    private final long freeExtents;
    private final long largestFreeRun;

    private ExtentMap(long totalExtents, List<ExtentRun> free) {
        this.totalExtents = totalExtents;
        this.free = List.copyOf(free);
        this.freeExtents = free.stream().mapToLong(ExtentRun::count).sum();
        this.largestFreeRun = free.stream().mapToLong(ExtentRun::count).max().orElse(0);
    }

    /**
     * The map of a pool of {@code totalExtents} extents of which {@code allocated} are in use.
     *
     * @throws IllegalStateException if runs overlap or reach past the pool's end
     */
    public static ExtentMap of(long totalExtents, Collection<ExtentRun> allocated) {
        List<ExtentRun> sorted = allocated.stream().sorted(Comparator.comparingLong(ExtentRun::start)).toList();
        List<ExtentRun> free = new ArrayList<>();
        long cursor = 0;
        for (ExtentRun r : sorted) {
            if (r.start() < cursor) {
                throw new IllegalStateException("allocated extents " + r.start() + ".." + (r.end() - 1)
                        + " overlap others ending at " + (cursor - 1));
            }
            if (r.end() > totalExtents) {
                throw new IllegalStateException("allocated extents " + r.start() + ".." + (r.end() - 1)
                        + " reach past the pool's " + Counted.of(totalExtents, "extent"));
            }
            if (r.start() > cursor) {
                free.add(new ExtentRun(cursor, r.start() - cursor));
            }
            cursor = r.end();
        }
        if (cursor < totalExtents) {
            free.add(new ExtentRun(cursor, totalExtents - cursor));
        }
        return new ExtentMap(totalExtents, free);
    }

    /**
     * Where {@code count} extents go (see the class comment), in the order the owner gets them;
     * empty if fewer than {@code count} are free.
     *
     * @param continueAt the extent just past the owner's last run, or -1 for a new owner
     */
    public Optional<List<ExtentRun>> place(long count, long continueAt) {
        if (count <= 0) {
            throw new IllegalArgumentException("extents to place must be positive: " + count);
        }
        if (count > freeExtents) {
            return Optional.empty();
        }
        ExtentRun best = null;
        for (ExtentRun r : free) {
            if (r.count() >= count) {
                if (r.start() == continueAt) {
                    return Optional.of(List.of(new ExtentRun(r.start(), count)));
                }
                if (best == null || r.count() < best.count()) {
                    best = r;
                }
            }
        }
        if (best != null) {
            return Optional.of(List.of(new ExtentRun(best.start(), count)));
        }
        List<ExtentRun> out = new ArrayList<>();
        long left = count;
        for (ExtentRun r : free) {
            long take = Math.min(left, r.count());
            out.add(new ExtentRun(r.start(), take));
            left -= take;
            if (left == 0) {
                break;
            }
        }
        return Optional.of(out);
    }

    public long totalExtents() {
        return totalExtents;
    }

    public long freeExtents() {
        return freeExtents;
    }

    public long usedExtents() {
        return totalExtents - freeExtents;
    }

    /** The longest free run, in extents: the largest volume that gets one segment. */
    public long largestFreeRun() {
        return largestFreeRun;
    }

    /** The free runs in pool order. */
    public List<ExtentRun> freeRuns() {
        return free;
    }
}
