package io.blockwork.bench;

import java.util.Arrays;

/**
 * How long one cache line takes to move between two CPUs: two threads spin on one volatile field
 * and hand it back and forth; the figure is nanoseconds per one-way hand-off, the median of a few
 * short bursts (a burst that lost its CPU to another thread is an outlier the median drops).
 *
 * <p>Why a benchmark prints it: on the 2-vCPU machine the benchmarks run on, the host places the
 * two vCPUs either close together (about 30 ns a hand-off) or far apart (about 250 to 320 ns), and
 * switches between the two while a run goes on (issue 20, 2026-12-02). Code whose threads share
 * cache lines on both CPUs, such as {@code fine} snapshot locking with two workers running at once,
 * costs a third to a half more CPU per write in the far placement, while {@code global}, whose
 * writers mostly take turns on one CPU, barely notices; so a fine/global ratio means little
 * without the placement it was measured under.
 */
final class CoreHandoff {

    private static final int BURSTS = 5;
    private static final long BURST_NANOS = 30_000_000L;
    /** Few, so a partner that lost its CPU (each trip then waits out a time slice) ends the burst soon. */
    private static final int ROUND_TRIPS_PER_CHECK = 64;

    /** The shared line: whose turn it is (0 the caller, 1 the partner), and when to stop. */
    private static final class Line {
        volatile int turn;
        volatile boolean stop;
    }

    private CoreHandoff() {}

    /** Nanoseconds per one-way hand-off, median of the bursts (about 150 ms); NaN with one CPU. */
    static double nanos() {
        if (Runtime.getRuntime().availableProcessors() < 2) {
            return Double.NaN; // both threads would take turns on one CPU, a time slice a hand-off
        }
        Line line = new Line();
        Thread partner = Thread.ofPlatform().daemon().name("core-handoff").start(() -> {
            while (true) {
                while (line.turn != 1) {
                    if (line.stop) {
                        return;
                    }
                    Thread.onSpinWait();
                }
                line.turn = 0;
            }
        });
        double[] bursts = new double[BURSTS];
        try {
            for (int b = 0; b < BURSTS; b++) {
                long start = System.nanoTime();
                long trips = 0;
                long elapsed;
                do {
                    for (int i = 0; i < ROUND_TRIPS_PER_CHECK; i++) {
                        line.turn = 1;
                        while (line.turn != 0) {
                            Thread.onSpinWait();
                        }
                    }
                    trips += ROUND_TRIPS_PER_CHECK;
                    elapsed = System.nanoTime() - start;
                } while (elapsed < BURST_NANOS);
                bursts[b] = elapsed / (2.0 * trips);
            }
        } finally {
            line.stop = true;
            line.turn = 1; // lets the partner out of its wait
        }
        try {
            partner.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Arrays.sort(bursts);
        return bursts[BURSTS / 2];
    }

    /** Prints the figure, for shell loops that pair it with other measurements. */
    public static void main(String[] args) {
        System.out.printf("%.0f%n", nanos());
    }
}
