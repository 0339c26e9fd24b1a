package io.blockwork.engine.md;

/**
 * Which thread computes a full-stripe write's parity (md hands stripes to raid5d and, with
 * {@code group_thread_cnt}, to worker groups; the submitter never computes parity there).
 */
public enum ParityThreads {
    /**
     * The thread running the stripe head computes P (and Q), then writes every member: with
     * memory disks, which complete inline, the submitter does all of it. Kept so the raid5
     * benchmark shows the two side by side.
     */
    SUBMITTER,
    /**
     * A stripe worker computes P (and Q) and writes them while the submitting thread writes the
     * data members from the caller's buffers (the default). Costs a hand-off per stripe; pays
     * where a core is free.
     */
    WORKERS;

    /** Names of the stripe workers' threads start with this (benchmarks add their CPU time). */
    public static final String WORKER_THREAD_PREFIX = "raid5-stripe-worker-";
}
