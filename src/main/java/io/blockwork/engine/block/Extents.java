package io.blockwork.engine.block;

import java.util.ArrayList;
import java.util.List;

/**
 * The answer to an allocation query: runs of {@link Allocation} covering a range from its start,
 * in order, adjacent runs of one state merged. A device appends to it ({@link #add}); layers that
 * remap a range one to one let their lower device append to the same object, since runs carry
 * lengths, not offsets.
 *
 * <p>The answer may stop short: a collector holds at most {@code maxExtents} runs, and once a run
 * of another state would be needed it {@link #stopped() stops} and refuses more. Whoever fills it
 * checks {@link #stopped()} after each piece and stops too (an NBD reply may cover less than was
 * asked).
 */
public final class Extents {

    /** One run: {@code length} bytes in {@code state}. */
    public record Extent(long length, Allocation state) {}

    private final int maxExtents;
    private final ArrayList<Extent> runs = new ArrayList<>();
    private long covered;
    private boolean stopped;

    public Extents(int maxExtents) {
        if (maxExtents < 1) {
            throw new IllegalArgumentException("maxExtents must be at least 1: " + maxExtents);
        }
        this.maxExtents = maxExtents;
    }

    /** Appends the next {@code length} bytes; false (and {@link #stopped()}) if there is no room. */
    public boolean add(long length, Allocation state) {
        if (length <= 0) {
            return !stopped;
        }
        if (stopped) {
            return false;
        }
        if (!runs.isEmpty() && runs.getLast().state() == state) {
            runs.set(runs.size() - 1, new Extent(runs.getLast().length() + length, state));
        } else if (runs.size() < maxExtents) {
            runs.add(new Extent(length, state));
        } else {
            stopped = true;
            return false;
        }
        covered += length;
        return true;
    }

    /** An empty collector with this one's limit, for a layer that must look at an answer before passing it on. */
    public Extents fresh() {
        return new Extents(maxExtents);
    }

    /** Appends another answer's runs (and stops here if it stopped). */
    public void addAll(Extents other) {
        for (Extent e : other.runs) {
            if (!add(e.length(), e.state())) {
                return;
            }
        }
        if (other.stopped) {
            stop();
        }
    }

    /** Ends the answer here (a layer that could not describe the rest of its piece). */
    public void stop() {
        stopped = true;
    }

    public boolean stopped() {
        return stopped;
    }

    /** Bytes described so far. */
    public long covered() {
        return covered;
    }

    public List<Extent> extents() {
        return List.copyOf(runs);
    }

    /**
     * Appends a range whose bytes any of {@code copies} may supply (raid1 and raid10 copies, mirror
     * legs): a hole only where every copy has one. Each copy describes {@code length} bytes (or
     * stops short); the union covers as far as the shortest copy.
     */
    public void addUnion(List<Extents> copies, long length) {
        if (copies.isEmpty()) {
            add(length, Allocation.DATA);
            return;
        }
        long reach = length;
        for (Extents c : copies) {
            reach = Math.min(reach, c.covered);
        }
        int n = copies.size();
        int[] index = new int[n];
        long[] left = new long[n];
        for (int i = 0; i < n; i++) {
            left[i] = copies.get(i).runs.isEmpty() ? 0 : copies.get(i).runs.getFirst().length();
        }
        long done = 0;
        while (done < reach) {
            long step = reach - done;
            Allocation state = Allocation.HOLE;
            for (int i = 0; i < n; i++) {
                List<Extent> r = copies.get(i).runs;
                while (left[i] == 0) {
                    left[i] = r.get(++index[i]).length();
                }
                step = Math.min(step, left[i]);
                state = state.or(r.get(index[i]).state());
            }
            for (int i = 0; i < n; i++) {
                left[i] -= step;
            }
            if (!add(step, state)) {
                return;
            }
            done += step;
        }
        if (reach < length) {
            stop();
        }
    }

    @Override
    public String toString() {
        return runs.toString();
    }
}
