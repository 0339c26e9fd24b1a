package io.blockwork.engine.md;

import io.blockwork.engine.block.Quoted;
import java.util.Locale;

/**
 * A raid4/5/6 layout ("algorithm") with md's number, as the superblock's {@code layout} field and
 * {@code /proc/mdstat}'s "algorithm N" carry it, and mdadm's name. Where the parity goes for each
 * one is {@link ParityGeometry}'s business.
 *
 * <p>raid5 takes the first six; raid6 takes the first six too (each with P and Q side by side),
 * the three DDF rotations (8-10), and the raid5-compatible ones (16-20: a raid5 layout with Q on
 * the last device, what a raid5 to raid6 conversion leaves). raid4 is {@link #PARITY_N}: parity
 * on the last device, always (md's raid4 ignores the algorithm).
 */
public enum ParityLayout {
    LEFT_ASYMMETRIC(0, "left-asymmetric", true, true),
    RIGHT_ASYMMETRIC(1, "right-asymmetric", true, true),
    LEFT_SYMMETRIC(2, "left-symmetric", true, true),
    RIGHT_SYMMETRIC(3, "right-symmetric", true, true),
    PARITY_0(4, "parity-first", true, true),
    PARITY_N(5, "parity-last", true, true),
    ROTATING_ZERO_RESTART(8, "ddf-zero-restart", false, true),
    ROTATING_N_RESTART(9, "ddf-N-restart", false, true),
    ROTATING_N_CONTINUE(10, "ddf-N-continue", false, true),
    LEFT_ASYMMETRIC_6(16, "left-asymmetric-6", false, true),
    RIGHT_ASYMMETRIC_6(17, "right-asymmetric-6", false, true),
    LEFT_SYMMETRIC_6(18, "left-symmetric-6", false, true),
    RIGHT_SYMMETRIC_6(19, "right-symmetric-6", false, true),
    PARITY_0_6(20, "parity-first-6", false, true);

    /** mdadm's default for raid5 and raid6. */
    public static final ParityLayout DEFAULT = LEFT_SYMMETRIC;

    private final int code;
    private final String label;
    private final boolean raid5;
    private final boolean raid6;

    ParityLayout(int code, String label, boolean raid5, boolean raid6) {
        this.code = code;
        this.label = label;
        this.raid5 = raid5;
        this.raid6 = raid6;
    }

    /** md's number. */
    public int code() {
        return code;
    }

    /** mdadm's name. */
    public String label() {
        return label;
    }

    /** True for the DDF rotations, whose Q takes the data in device order rather than from Q onwards. */
    boolean ddf() {
        return code >= 8 && code <= 10;
    }

    /** The default layout of {@code level}. */
    public static ParityLayout defaultFor(MdLevel level) {
        return level == MdLevel.RAID4 ? PARITY_N : DEFAULT;
    }

    /** Refuses a layout {@code level} does not have. */
    public ParityLayout checkFor(MdLevel level) {
        boolean ok = switch (level) {
            case RAID4 -> this == PARITY_N;
            case RAID5 -> raid5;
            case RAID6 -> raid6;
            default -> false;
        };
        if (!ok) {
            throw new MdArgumentException("layout", label + " (" + code + ") is not a " + level.label() + " layout"
                    + (level == MdLevel.RAID4 ? "; raid4 keeps its parity on the last member" : ""));
        }
        return this;
    }

    /**
     * mdadm's names ({@code left-symmetric}, {@code ls}, {@code la}, ..., {@code parity-last}) or
     * md's number; null or blank means {@code level}'s default.
     */
    public static ParityLayout parse(String text, MdLevel level) {
        if (text == null || text.isBlank()) {
            return defaultFor(level);
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        ParityLayout named = switch (t) {
            case "ls", "left-symmetric" -> LEFT_SYMMETRIC;
            case "la", "left-asymmetric" -> LEFT_ASYMMETRIC;
            case "rs", "right-symmetric" -> RIGHT_SYMMETRIC;
            case "ra", "right-asymmetric" -> RIGHT_ASYMMETRIC;
            case "parity-first" -> PARITY_0;
            case "parity-last" -> PARITY_N;
            case "default" -> defaultFor(level);
            default -> null;
        };
        if (named == null) {
            for (ParityLayout l : values()) {
                if (l.label.toLowerCase(Locale.ROOT).equals(t)) {
                    named = l;
                }
            }
        }
        if (named == null) {
            try {
                named = fromCode(t.startsWith("0x") ? Integer.parseInt(t.substring(2), 16) : Integer.parseInt(t));
            } catch (NumberFormatException e) {
                throw new MdArgumentException("layout", Quoted.of(text) + " is not a " + level.label()
                        + " layout (left-symmetric, left-asymmetric, right-symmetric, right-asymmetric, parity-first,"
                        + " parity-last" + (level == MdLevel.RAID6 ? ", the -6 and ddf- variants" : "") + ", or md's number)");
            }
        }
        return named.checkFor(level);
    }

    /** md's number to the layout. */
    public static ParityLayout fromCode(int code) {
        for (ParityLayout l : values()) {
            if (l.code == code) {
                return l;
            }
        }
        throw new MdArgumentException("layout", "md has no raid4/5/6 algorithm " + code);
    }

    @Override
    public String toString() {
        return label;
    }
}
