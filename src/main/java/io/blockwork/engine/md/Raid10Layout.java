package io.blockwork.engine.md;

import io.blockwork.engine.block.Quoted;
import java.util.Locale;

/**
 * A raid10 layout as mdadm names it and md encodes it in the superblock's {@code layout} field:
 * {@code near = layout & 0xff}, {@code far = (layout >> 8) & 0xff}, bit 16 makes the far copies
 * "offset" copies (one chunk apart instead of about 1/far of each device apart). mdadm's short
 * forms are {@code n2} (0x102, the default), {@code f2} (0x201) and {@code o2} (0x10201); other
 * combinations can only be given numerically.
 *
 * <p>Bits 17-18 select md's "far sets" (copies rotate within groups of devices instead of across
 * the whole array). mdadm never creates such layouts, only dm-raid does, and they are refused here
 * with a message saying so.
 *
 * @param near copies of each chunk on consecutive devices
 * @param far copies of the whole near layout further down the devices
 * @param offset far copies sit in the next chunk row, shifted by {@code near} devices
 */
public record Raid10Layout(int near, int far, boolean offset) {

    private static final int OFFSET_BIT = 1 << 16;

    public static final Raid10Layout N2 = new Raid10Layout(2, 1, false);

    public Raid10Layout {
        if (near < 1 || near > 255 || far < 1 || far > 255) {
            throw new MdArgumentException("layout", "near and far copies must be 1..255, got near=" + near + " far=" + far);
        }
        if (near * far < 2) {
            throw new MdArgumentException("layout", "raid10 needs at least 2 copies, got " + near * far);
        }
        if (offset && far < 2) {
            throw new MdArgumentException("layout", "an offset layout needs at least 2 offset copies");
        }
    }

    /** Total copies of each block. */
    public int copies() {
        return near * far;
    }

    /** md's numeric encoding. */
    public int code() {
        return near | far << 8 | (offset ? OFFSET_BIT : 0);
    }

    /**
     * Parses {@code n2}/{@code f3}/{@code o2} or a number (decimal, or hex with {@code 0x}).
     * Null or blank means the default, {@code n2}.
     */
    public static Raid10Layout parse(String text) {
        if (text == null || text.isBlank()) {
            return N2;
        }
        // strip(), not trim(): trim() also drops control characters such as NUL, which would leave
        // nothing to read where isBlank() saw something
        String t = text.strip().toLowerCase(Locale.ROOT);
        char kind = t.charAt(0);
        if ((kind == 'n' || kind == 'f' || kind == 'o') && t.length() > 1 && t.substring(1).chars().allMatch(Character::isDigit)) {
            int copies = parseInt(t.substring(1), 10, text);
            return switch (kind) {
                case 'n' -> new Raid10Layout(copies, 1, false);
                case 'f' -> new Raid10Layout(1, copies, false);
                default -> new Raid10Layout(1, copies, true);
            };
        }
        int code = t.startsWith("0x") ? parseInt(t.substring(2), 16, text) : parseInt(t, 10, text);
        return fromCode(code);
    }

    /** Decodes md's numeric layout. */
    public static Raid10Layout fromCode(int code) {
        if (code < 0 || (code >> 17) != 0) {
            throw new MdArgumentException("layout", String.format(
                    "0x%x uses md's far-set bits (17-18), which mdadm never creates; not supported", code));
        }
        return new Raid10Layout(code & 0xff, (code >> 8) & 0xff, (code & OFFSET_BIT) != 0);
    }

    private static int parseInt(String digits, int radix, String original) {
        try {
            return Integer.parseInt(digits, radix);
        } catch (NumberFormatException e) {
            throw new MdArgumentException("layout", Quoted.of(original) + " is not a raid10 layout (n2, f2, o2, or md's number such as 0x102)");
        }
    }

    /** mdadm's short name where there is one ({@code n2}, {@code f2}, {@code o3}), else the hex code. */
    public String label() {
        if (far == 1) {
            return "n" + near;
        }
        if (near == 1) {
            return (offset ? "o" : "f") + far;
        }
        return String.format("0x%x", code());
    }

    /** As {@code mdadm --detail} prints it: {@code near=2}, {@code far=2}, {@code near=2, offset=2}. */
    public String describe() {
        StringBuilder s = new StringBuilder();
        if (near > 1) {
            s.append("near=").append(near);
        }
        if (far > 1) {
            s.append(s.isEmpty() ? "" : ", ").append(offset ? "offset=" : "far=").append(far);
        }
        return s.toString();
    }

    @Override
    public String toString() {
        return label();
    }
}
