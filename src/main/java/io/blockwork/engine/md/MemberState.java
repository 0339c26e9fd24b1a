package io.blockwork.engine.md;

/** Where a member stands, as {@code mdadm --detail} reports it. */
public enum MemberState {
    /** Holds a full, current copy of its slot ("active sync"). */
    IN_SYNC("in_sync", "active sync"),
    /** In a slot (or beside one, as a replacement) and being rebuilt ("spare rebuilding"). */
    REBUILDING("rebuilding", "spare rebuilding"),
    /** Attached but unused until a slot needs it. */
    SPARE("spare", "spare"),
    /** Failed by an I/O error or by request; no longer read or written. */
    FAULTY("faulty", "faulty"),
    /** An empty slot: its member was removed or is missing. */
    REMOVED("removed", "removed");

    private final String label;
    private final String mdadmText;

    MemberState(String label, String mdadmText) {
        this.label = label;
        this.mdadmText = mdadmText;
    }

    public String label() {
        return label;
    }

    /** The words in mdadm --detail's State column. */
    public String mdadmText() {
        return mdadmText;
    }
}
