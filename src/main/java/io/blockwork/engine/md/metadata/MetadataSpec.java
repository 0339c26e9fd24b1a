package io.blockwork.engine.md.metadata;

import java.util.Locale;

/**
 * What an array keeps on its members: nothing ({@code none}, Blockwork's behaviour before
 * superblocks: data from offset 0, the service's database is the only record), or md's v1.2
 * superblock with the array's uuid and, optionally, an internal write-intent bitmap.
 *
 * @param format {@code none} or {@code 1.2}
 * @param uuid the array's uuid ({@code set_uuid}); null for {@code none}
 * @param bitmap the internal bitmap; null for none
 */
public record MetadataSpec(Format format, MdUuid uuid, Bitmap bitmap) {

    public static final MetadataSpec NONE = new MetadataSpec(Format.NONE, null, null);

    /** The metadata formats, by mdadm's {@code --metadata} names. */
    public enum Format {
        NONE("none"),
        V1_2("1.2");

        private final String label;

        Format(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** Accepts {@code none}, {@code 1.2} (mdadm's {@code 1.02} and {@code default} too). */
        public static Format parse(String text) {
            return switch (text == null ? "" : text.trim().toLowerCase(Locale.ROOT)) {
                case "none" -> NONE;
                case "1.2", "1.02", "default" -> V1_2;
                default -> throw new IllegalArgumentException("unknown metadata '" + text + "' (1.2, none)");
            };
        }
    }

    /**
     * An internal write-intent bitmap.
     *
     * @param chunkBytes bytes per bit; 0 for the default ({@link MemberLayout#defaultBitmapChunk})
     * @param daemonSleepSeconds md's daemon_sleep: an idle chunk's bit clears after one to two of these
     */
    public record Bitmap(long chunkBytes, int daemonSleepSeconds) {
        public static final int DEFAULT_DAEMON_SLEEP = 5;
        public static final Bitmap DEFAULT = new Bitmap(0, DEFAULT_DAEMON_SLEEP);

        public Bitmap {
            if (chunkBytes != 0 && (chunkBytes < 4096 || chunkBytes > (1L << 30) || Long.bitCount(chunkBytes) != 1)) {
                throw new IllegalArgumentException("a bitmap chunk is a power of two from 4KiB to 1GiB, got " + chunkBytes + " bytes");
            }
            if (daemonSleepSeconds < 1 || daemonSleepSeconds > 3600) {
                throw new IllegalArgumentException("the bitmap daemon sleeps 1 to 3600 seconds, got " + daemonSleepSeconds);
            }
        }
    }

    public MetadataSpec {
        if (format == null) {
            throw new IllegalArgumentException("a metadata format is required");
        }
        if (format == Format.NONE && (uuid != null || bitmap != null)) {
            throw new IllegalArgumentException("an array without metadata has no uuid and no bitmap");
        }
        if (format == Format.V1_2 && uuid == null) {
            throw new IllegalArgumentException("a v1.2 array needs a uuid");
        }
    }

    /** v1.2 with a new random uuid. */
    public static MetadataSpec v12(Bitmap bitmap) {
        return new MetadataSpec(Format.V1_2, MdUuid.random(), bitmap);
    }

    public boolean present() {
        return format != Format.NONE;
    }
}
