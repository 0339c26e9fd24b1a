package io.blockwork.engine.md.parity;

import java.util.List;

/**
 * Times several pieces of work against each other fairly on a machine whose speed changes while
 * it measures (other processes, the JIT compiling on its own threads): in rounds, each round one
 * short slice of every candidate in turn, each candidate keeping its best slice, as the kernel's
 * {@code raid6_select_algo} keeps each algorithm's best over a window. A slow stretch then costs
 * every candidate the same rounds instead of all of one candidate's measurement (timing them one
 * after the other once reported XOR at 178 MB/s beside P+Q at 3,111 MB/s). Rounds go on until
 * {@link #CALM_ROUNDS} in a row raise no candidate's best by more than 5%, at least
 * {@code minRounds} and at most {@code maxRounds}.
 */
final class BestOfRounds {

    /** Rounds in a row without a gain that end the measurement. */
    static final int CALM_ROUNDS = 3;
    private static final double GAIN = 1.05;

    /** A slice of one candidate's work: runs for about {@code nanos} of the timer's clock and says how many bytes it did. */
    interface Work {
        long run(long nanos);
    }

    /** The clock slices are timed by (a thread's CPU time) and the pause between them. */
    interface Timer {
        long nanos();

        void pause(long nanos);
    }

    private BestOfRounds() {}

    /**
     * Each candidate's best rate in MB/s (10^6 bytes a second of the timer's clock), in the order
     * given; slices of {@code sliceNanos} with a pause of {@code pauseNanos} before each (the
     * JIT's threads get the CPU then).
     */
    static double[] megabytesPerSecond(List<Work> candidates, Timer timer, long sliceNanos, long pauseNanos,
                                       int minRounds, int maxRounds) {
        double[] best = new double[candidates.size()];
        int calm = 0;
        for (int round = 1; round <= maxRounds && (round <= minRounds || calm < CALM_ROUNDS); round++) {
            boolean gained = false;
            for (int i = 0; i < best.length; i++) {
                timer.pause(pauseNanos);
                long start = timer.nanos();
                long bytes = candidates.get(i).run(sliceNanos);
                long took = Math.max(1, timer.nanos() - start);
                double rate = bytes / 1e6 / (took / 1e9);
                gained |= rate > best[i] * GAIN;
                best[i] = Math.max(best[i], rate);
            }
            calm = gained ? 0 : calm + 1;
        }
        return best;
    }
}
