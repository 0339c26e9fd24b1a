package io.blockwork.engine.md;

import java.util.Locale;

/**
 * The md personalities Blockwork has, with mdadm's names, the smallest member count each accepts
 * and the level number md's superblock records.
 */
public enum MdLevel {
    LINEAR("linear", 1, false),
    RAID0("raid0", 2, false),
    RAID1("raid1", 2, true),
    RAID10("raid10", 2, true),
    RAID4("raid4", 3, true),
    RAID5("raid5", 3, true),
    RAID6("raid6", 4, true);

    private final String label;
    private final int minMembers;
    private final boolean redundant;

    MdLevel(String label, int minMembers, boolean redundant) {
        this.label = label;
        this.minMembers = minMembers;
        this.redundant = redundant;
    }

    /** The superblock's {@code level}: -1 linear, 0, 1, 10, 4, 5, 6 (the same as {@link #number()}). */
    public int mdNumber() {
        return number();
    }

    /** The level a superblock's {@code level} names, or empty for one Blockwork does not have. */
    public static java.util.Optional<MdLevel> fromMdNumber(int number) {
        for (MdLevel l : values()) {
            if (l.number() == number) {
                return java.util.Optional.of(l);
            }
        }
        return java.util.Optional.empty();
    }

    public String label() {
        return label;
    }

    public int minMembers() {
        return minMembers;
    }

    /** True for raid4, raid5 and raid6: redundancy by parity rather than copies. */
    public boolean parity() {
        return this == RAID4 || this == RAID5 || this == RAID6;
    }

    /** md's level number, as mdstat's "level 5" prints it (linear is -1). */
    public int number() {
        return switch (this) {
            case LINEAR -> -1;
            case RAID0 -> 0;
            case RAID1 -> 1;
            case RAID10 -> 10;
            case RAID4 -> 4;
            case RAID5 -> 5;
            case RAID6 -> 6;
        };
    }

    /** True for levels that keep more than one copy, and so can run degraded, resync and recover. */
    public boolean redundant() {
        return redundant;
    }

    /** Accepts mdadm's spellings: {@code raid10}, {@code 10}, {@code mirror}, {@code stripe}, ... */
    public static MdLevel fromLabel(String text) {
        if (text == null || text.isBlank()) {
            throw new MdArgumentException("level", "required (linear, raid0, raid1, raid10, raid4, raid5, raid6)");
        }
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "linear" -> LINEAR;
            case "raid0", "0", "stripe" -> RAID0;
            case "raid1", "1", "mirror" -> RAID1;
            case "raid10", "10" -> RAID10;
            case "raid4", "4" -> RAID4;
            case "raid5", "5" -> RAID5;
            case "raid6", "6" -> RAID6;
            default -> throw new MdArgumentException("level", "unknown level '" + text
                    + "' (linear, raid0, raid1, raid10, raid4, raid5, raid6)");
        };
    }
}
