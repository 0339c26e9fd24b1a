package io.blockwork.engine.dm;

/** The two forms of a target's status line, as {@code dmsetup status} and {@code dmsetup table} print them. */
public enum StatusType {
    /** Run-time state: counters, health, progress ({@code dmsetup status}). */
    INFO,
    /** The arguments that recreate the target, canonical ({@code dmsetup table}). */
    TABLE
}
