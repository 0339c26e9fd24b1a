package io.blockwork.engine.md;

/** The words of mdadm --detail's "State :" line; an array shows several at once ("clean, degraded, recovering"). */
public enum ArrayState {
    CLEAN("clean"),
    /** Writes in the last moment (md's safe-mode interval). */
    ACTIVE("active"),
    /** Some slot lacks an in-sync member. */
    DEGRADED("degraded"),
    RESYNCING("resyncing"),
    RECOVERING("recovering"),
    CHECKING("checking"),
    /** Serves no I/O: data lost, not enough members, or stopped; see the reason. */
    INACTIVE("inactive");

    private final String label;

    ArrayState(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
