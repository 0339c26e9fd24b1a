package io.blockwork.workload.store;

import java.util.Locale;

/** Where a workload or experiment is: running, or how it ended. The column keeps {@link #label()}. */
public enum RunState {
    RUNNING,
    /** Ran to its end (its figures may still report I/O errors). */
    FINISHED,
    /** Could not run, or broke off: see the error. */
    FAILED,
    /** Ended early on request, or because the service stopped. */
    CANCELLED,
    /** Was running when the service went away without stopping it (a crash). */
    INTERRUPTED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static RunState of(String label) {
        return valueOf(label.toUpperCase(Locale.ROOT));
    }
}
