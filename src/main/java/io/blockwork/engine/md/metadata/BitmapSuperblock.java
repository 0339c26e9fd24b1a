package io.blockwork.engine.md.metadata;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The write-intent bitmap's superblock ({@code bitmap_super_t}, drivers/md/md-bitmap.h), the first
 * 256 bytes of the bitmap area; the bits follow it directly, one per chunk, little-endian bit
 * order (version 4), bit set = the chunk may differ between copies.
 *
 * <pre>
 *   0 magic 0x6d746962 ("bitm"), version 4, uuid[16] (the array's)
 *  24 events, events_cleared, sync_size (sectors the bits cover)
 *  48 state (2 = stale), chunksize (bytes), daemon_sleep (seconds), write_behind, sectors_reserved,
 *     nodes, cluster_name[64], zero padding to 256
 * </pre>
 *
 * @param events the array's event count when the bitmap was last written with its superblock
 * @param eventsCleared the event count when bits were last cleared: a member whose own events are
 *        older may have missed writes whose bits are gone, so it cannot be re-added through the bitmap
 * @param syncSectors sectors of the level's sync range (array sectors for raid1 and raid10)
 * @param state {@link #STATE_STALE} when the bits cannot be trusted
 * @param chunkBytes bytes each bit stands for
 * @param daemonSleepSeconds how long a chunk stays idle before its bit is cleared (md clears after
 *        one to two of these periods)
 * @param sectorsReserved room for the bitmap between the superblock and the data (0: unknown)
 */
public record BitmapSuperblock(int version, MdUuid uuid, long events, long eventsCleared, long syncSectors, int state,
                               int chunkBytes, int daemonSleepSeconds, int writeBehind, int sectorsReserved) {

    public static final int MAGIC = 0x6d746962;
    public static final int VERSION = 4;
    public static final int SIZE = 256;
    public static final int STATE_STALE = 2;

    public BitmapSuperblock {
        if (chunkBytes < 512 || Integer.bitCount(chunkBytes) != 1) {
            throw new MetadataException("bitmap chunk of " + Integer.toUnsignedString(chunkBytes)
                    + " bytes; it must be a power of two of at least 512");
        }
        if (daemonSleepSeconds < 1) {
            throw new MetadataException("bitmap daemon sleep of " + daemonSleepSeconds + " s; at least 1 s");
        }
    }

    /** Chunks (bits) the bitmap has: mdadm's {@code bitmap_bits}. */
    public long bits() {
        return bits(syncSectors, chunkBytes);
    }

    public static long bits(long syncSectors, long chunkBytes) {
        return (syncSectors * 512 + chunkBytes - 1) / chunkBytes;
    }

    /** Bytes of the whole bitmap area (superblock and bits), rounded to {@code boundary}: mdadm's {@code calc_bitmap_size}. */
    public static long areaBytes(long bits, int boundary) {
        long bytes = SIZE + (bits + 7) / 8;
        return (bytes + boundary - 1) / boundary * boundary;
    }

    public boolean stale() {
        return (state & STATE_STALE) != 0;
    }

    public BitmapSuperblock withEvents(long newEvents, long newEventsCleared) {
        return new BitmapSuperblock(version, uuid, newEvents, newEventsCleared, syncSectors, state, chunkBytes,
                daemonSleepSeconds, writeBehind, sectorsReserved);
    }

    /** Writes the 256 bytes at {@code offset} of {@code into}. */
    public void encode(byte[] into, int offset) {
        ByteBuffer b = ByteBuffer.wrap(into, offset, SIZE).slice().order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < SIZE; i++) {
            b.put(i, (byte) 0);
        }
        b.putInt(0, MAGIC).putInt(4, version);
        uuid.write(into, offset + 8);
        b.putLong(24, events).putLong(32, eventsCleared).putLong(40, syncSectors).putInt(48, state)
                .putInt(52, chunkBytes).putInt(56, daemonSleepSeconds).putInt(60, writeBehind)
                .putInt(64, sectorsReserved);
    }

    /**
     * Reads a bitmap superblock, as mdadm's {@code load_super1} checks it: the magic, a version
     * whose bits are little-endian (3 on a little-endian host, 4), and the array's uuid.
     *
     * @throws MetadataException saying what is wrong
     */
    public static BitmapSuperblock decode(byte[] block, int offset, MdUuid arrayUuid) {
        ByteBuffer b = ByteBuffer.wrap(block, offset, SIZE).slice().order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(0) != MAGIC) {
            throw new MetadataException(String.format("no bitmap superblock (magic is %08x, expected %08x)", b.getInt(0), MAGIC));
        }
        int version = b.getInt(4);
        if (version != 3 && version != VERSION) {
            throw new MetadataException("bitmap version " + version + "; only 3 and 4 (non-clustered) are read");
        }
        MdUuid uuid = MdUuid.of(block, offset + 8);
        if (!uuid.equals(arrayUuid)) {
            throw new MetadataException("bitmap belongs to array " + uuid + ", not " + arrayUuid);
        }
        return new BitmapSuperblock(version, uuid, b.getLong(24), b.getLong(32), b.getLong(40), b.getInt(48),
                b.getInt(52), b.getInt(56), b.getInt(60), b.getInt(64));
    }
}
