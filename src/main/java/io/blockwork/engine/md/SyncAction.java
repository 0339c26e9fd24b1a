package io.blockwork.engine.md;

import io.blockwork.engine.block.Labelled;

/** What the sync daemon is doing, with md's {@code sync_action} names. */
public enum SyncAction implements Labelled {
    IDLE,
    /** Making a new (or uncleanly stopped) array's copies agree. */
    RESYNC,
    /** Rebuilding a spare or replacement from the other copies. */
    RECOVER,
    /** Scrub: read every copy and count mismatches, change nothing. */
    CHECK,
    /** Scrub and rewrite copies that differ from the first. */
    REPAIR;
}
