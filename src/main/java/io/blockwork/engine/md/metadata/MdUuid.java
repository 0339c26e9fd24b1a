package io.blockwork.engine.md.metadata;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;

/**
 * A 128-bit md uuid (an array's {@code set_uuid} or a member's {@code device_uuid}), kept as the 16
 * bytes the superblock stores, first byte in the high byte of {@link #high}. Printed as mdadm prints
 * it: the bytes in order, in hex, a colon after every four ({@code 3b5a6f1e:...}).
 */
public record MdUuid(long high, long low) {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    /** A random uuid, as mdadm's {@code random_uuid}. */
    public static MdUuid random() {
        return new MdUuid(RANDOM.nextLong(), RANDOM.nextLong());
    }

    public static MdUuid of(byte[] bytes, int offset) {
        long h = 0;
        long l = 0;
        for (int i = 0; i < 8; i++) {
            h = h << 8 | (bytes[offset + i] & 0xff);
            l = l << 8 | (bytes[offset + 8 + i] & 0xff);
        }
        return new MdUuid(h, l);
    }

    /**
     * Parses mdadm's form ({@code 8:8:8:8} hex digits) or the usual {@code 8-4-4-4-12} one.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static MdUuid parse(String text) {
        String hex = text == null ? "" : text.trim().replace(":", "").replace("-", "").toLowerCase(Locale.ROOT);
        if (hex.length() != 32 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("'" + text + "' is not a uuid (32 hex digits, as mdadm prints them:"
                    + " 3b5a6f1e:0c2d4e6f:8a9b0c1d:2e3f4a5b)");
        }
        return of(HEX.parseHex(hex), 0);
    }

    public void write(byte[] into, int offset) {
        for (int i = 0; i < 8; i++) {
            into[offset + i] = (byte) (high >>> (56 - 8 * i));
            into[offset + 8 + i] = (byte) (low >>> (56 - 8 * i));
        }
    }

    public byte[] bytes() {
        byte[] b = new byte[16];
        write(b, 0);
        return b;
    }

    /** mdadm's form. */
    @Override
    public String toString() {
        String hex = HEX.formatHex(bytes());
        return hex.substring(0, 8) + ":" + hex.substring(8, 16) + ":" + hex.substring(16, 24) + ":" + hex.substring(24);
    }
}
