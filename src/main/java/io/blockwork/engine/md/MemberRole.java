package io.blockwork.engine.md;

/** What a member is for, apart from its state: mdadm --detail's RaidDevice column in words. */
public enum MemberRole {
    /** Fills a raid slot (in sync or being rebuilt into it). */
    ACTIVE("active"),
    /** Rebuilt beside a slot's in-sync member, to take the slot over ({@code mdadm --replace}). */
    REPLACEMENT("replacement"),
    /** Waits for a slot to need it. */
    SPARE("spare"),
    /** Out of the array: a failed member not yet removed, or an empty slot. */
    NONE("none");

    private final String label;

    MemberRole(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
