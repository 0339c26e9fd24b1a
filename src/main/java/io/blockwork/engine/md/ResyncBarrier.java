package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;

/**
 * Keeps normal I/O and resync windows apart (md's {@code wait_barrier}/{@code allow_barrier} for
 * I/O, {@code raise_barrier}/{@code lower_barrier} for the sync daemon).
 *
 * <p>Where the kernel sleeps in {@code wait_barrier}, a Blockwork submitter may not block, so a
 * bio that meets a raised barrier is <em>parked</em> instead and handed to the barrier's resume
 * callback, already admitted, when the barrier drops. The guarantees:
 * <ol>
 *   <li>no admitted I/O is in flight (in the raised scope) while a raiser is past {@link #raise};
 *   <li>{@link #raise} returns only once every I/O admitted before it has {@link #exit exited};
 *   <li>nothing is lost: every parked bio is resumed by the {@link #lower} that drops the barrier,
 *       and the last exit wakes a sleeping raiser.
 * </ol>
 * One thread raises at a time (the array's daemon). Raising is not interruptible: admitted I/O
 * always completes, so the wait is bounded by the slowest request in flight.
 */
sealed interface ResyncBarrier permits OptimisticBarrier, LockedBarrier, BucketBarrier {

    /** Admits {@code bio} (true: the caller proceeds and later calls {@link #exit}) or parks it (false). */
    boolean enter(Bio bio);

    /** An admitted bio has finished with the members. */
    void exit(Bio bio);

    /** Blocks new I/O in the scope of {@code offset} and waits until admitted I/O there has exited. */
    void raise(long offset);

    /** Drops the barrier raised for {@code offset}; parked bios are resumed on this thread. */
    void lower(long offset);

    /** Admitted I/O not yet exited (all scopes), for status and tests. */
    int pending();
}
