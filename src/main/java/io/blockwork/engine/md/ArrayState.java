package io.blockwork.engine.md;

import io.blockwork.engine.block.Labelled;

/** The words of mdadm --detail's "State :" line; an array shows several at once ("clean, degraded, recovering"). */
public enum ArrayState implements Labelled {
    CLEAN,
    /** Writes in the last moment (md's safe-mode interval). */
    ACTIVE,
    /** Some slot lacks an in-sync member. */
    DEGRADED,
    RESYNCING,
    RECOVERING,
    CHECKING,
    /** Serves no I/O: data lost, not enough members, or stopped; see the reason. */
    INACTIVE;
}
