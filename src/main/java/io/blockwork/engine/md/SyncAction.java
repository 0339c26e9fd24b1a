package io.blockwork.engine.md;

/** What the sync daemon is doing, with md's {@code sync_action} names. */
public enum SyncAction {
    IDLE("idle"),
    /** Making a new (or uncleanly stopped) array's copies agree. */
    RESYNC("resync"),
    /** Rebuilding a spare or replacement from the other copies. */
    RECOVER("recover"),
    /** Scrub: read every copy and count mismatches, change nothing. */
    CHECK("check"),
    /** Scrub and rewrite copies that differ from the first. */
    REPAIR("repair");

    private final String label;

    SyncAction(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
