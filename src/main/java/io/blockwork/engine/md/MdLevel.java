package io.blockwork.engine.md;

import java.util.Locale;

/**
 * The md personalities Blockwork has, with mdadm's names, the smallest member count each accepts
 * and the level number md's superblock records.
 */
public enum MdLevel {
    LINEAR("linear", 1, false, -1),
    RAID0("raid0", 2, false, 0),
    RAID1("raid1", 2, true, 1),
    RAID10("raid10", 2, true, 10);

    private final String label;
    private final int minMembers;
    private final boolean redundant;
    private final int mdNumber;

    MdLevel(String label, int minMembers, boolean redundant, int mdNumber) {
        this.label = label;
        this.minMembers = minMembers;
        this.redundant = redundant;
        this.mdNumber = mdNumber;
    }

    /** The superblock's {@code level}: -1 linear, 0, 1, 10 (4, 5, 6 for the parity levels). */
    public int mdNumber() {
        return mdNumber;
    }

    /** The level a superblock's {@code level} names, or empty for one Blockwork does not have. */
    public static java.util.Optional<MdLevel> fromMdNumber(int number) {
        for (MdLevel l : values()) {
            if (l.mdNumber == number) {
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

    /** True for levels that keep more than one copy, and so can run degraded, resync and recover. */
    public boolean redundant() {
        return redundant;
    }

    /** Accepts mdadm's spellings: {@code raid10}, {@code 10}, {@code mirror}, {@code stripe}, ... */
    public static MdLevel fromLabel(String text) {
        if (text == null || text.isBlank()) {
            throw new MdArgumentException("level", "required (linear, raid0, raid1, raid10)");
        }
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "linear" -> LINEAR;
            case "raid0", "0", "stripe" -> RAID0;
            case "raid1", "1", "mirror" -> RAID1;
            case "raid10", "10" -> RAID10;
            default -> throw new MdArgumentException("level", "unknown level '" + text + "' (linear, raid0, raid1, raid10)");
        };
    }
}
