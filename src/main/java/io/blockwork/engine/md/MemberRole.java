package io.blockwork.engine.md;

import io.blockwork.engine.block.Labelled;

/** What a member is for, apart from its state: mdadm --detail's RaidDevice column in words. */
public enum MemberRole implements Labelled {
    /** Fills a raid slot (in sync or being rebuilt into it). */
    ACTIVE,
    /** Rebuilt beside a slot's in-sync member, to take the slot over ({@code mdadm --replace}). */
    REPLACEMENT,
    /** Waits for a slot to need it. */
    SPARE,
    /** Out of the array: a failed member not yet removed, or an empty slot. */
    NONE;
}
