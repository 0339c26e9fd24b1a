package io.blockwork.engine.md.metadata;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * md's version-1 superblock ({@code struct mdp_superblock_1}, include/uapi/linux/raid/md_p.h), the
 * record every member of a v1.2 array carries 4 KiB from its start, with pure functions to encode
 * and decode its little-endian layout. What is not here is written as zero, as the kernel does:
 * the corrected-read count.
 *
 * <p>The layout, in three parts, bytes from the start:
 * <pre>
 *   0 magic 0xa92b4efc, major_version 1, feature_map, pad
 *  16 set_uuid[16], set_name[32]
 *  64 ctime (40 bits seconds, 24 bits microseconds), level (-1 linear), layout, size (used sectors of
 *     each member), chunksize (sectors), raid_disks, bitmap_offset (signed sectors from here)
 * 100 reshape fields ({@link Reshape})                                -- array part ends at 128
 * 128 data_offset, data_size, super_offset, recovery_offset (sectors), dev_number,
 *     cnt_corrected_read, device_uuid[16], devflags, bblog_shift, bblog_size, bblog_offset
 *                                                                     -- device part ends at 192
 * 192 utime, events, resync_offset, sb_csum, max_dev, pad            -- state part ends at 256
 * 256 dev_roles[max_dev]: the role of each dev_number (a slot, 0xffff spare, 0xfffe faulty)
 * </pre>
 * The checksum ({@code calc_sb_1_csum}) sums the little-endian 32-bit words of the first
 * {@code 256 + 2 * max_dev} bytes with {@code sb_csum} taken as zero, adds a trailing 16-bit word
 * if there is one, and folds the carry: {@code (sum & 0xffffffff) + (sum >> 32)}.
 *
 * @param featureMap md's feature bits ({@link #FEATURE_BITMAP_OFFSET}, ...)
 * @param name {@code set_name}, at most 32 bytes (mdadm writes {@code homehost:name})
 * @param ctime creation time, md's packed form
 * @param level md's level number: -1 linear, 0, 1, 4, 5, 6, 10
 * @param layout raid10's (or raid5/6's) layout code; 0 for levels without one
 * @param size sectors of each member the array uses (mdadm's Used Dev Size)
 * @param chunkSectors chunk (linear: rounding) in sectors; 0 for raid1
 * @param bitmapOffset sectors from the superblock to the bitmap (signed); meaningful with
 *        {@link #FEATURE_BITMAP_OFFSET}
 * @param reshape where a reshape stands and what it goes to; meaningful with
 *        {@link #FEATURE_RESHAPE_ACTIVE}, else {@link Reshape#NONE}
 * @param dataOffset sector where this member's data starts
 * @param dataSize sectors of this member that may hold data
 * @param superOffset sector of this superblock (8 for v1.2)
 * @param recoveryOffset sectors from the data offset already rebuilt; meaningful with
 *        {@link #FEATURE_RECOVERY_OFFSET}
 * @param devNumber this member's permanent number (an index into {@code roles}, not its slot)
 * @param devFlags write-mostly (1), failfast (2)
 * @param bblogShift bad-block log granularity
 * @param bblogSize sectors reserved for the bad-block log, 0 for none
 * @param bblogOffset sectors from the superblock to the bad-block log (signed)
 * @param utime last update time, packed as {@code ctime}
 * @param events incremented by every superblock update
 * @param resyncOffset sectors known to be in sync; {@link #MAX_SECTOR} when the array is clean
 *        and 0 while it is active (written to)
 * @param roles {@code dev_roles[0..max_dev)}
 */
public record Superblock(int featureMap, MdUuid arrayUuid, String name, long ctime, int level, int layout, long size,
                         int chunkSectors, int raidDisks, int bitmapOffset, Reshape reshape, long dataOffset, long dataSize,
                         long superOffset, long recoveryOffset, int devNumber, MdUuid deviceUuid, int devFlags,
                         int bblogShift, int bblogSize, int bblogOffset, long utime, long events, long resyncOffset,
                         List<Integer> roles) {

    /** {@code dev_flags}' WriteMostly1: reads avoid this member (mdadm --write-mostly). */
    public static final int DEV_FLAG_WRITE_MOSTLY = 1;

    /** Bytes md reads and writes for a v1 superblock (mdadm's MAX_SB_SIZE). */
    public static final int BLOCK = 4096;
    /** Where v1.2 keeps it: 4 KiB from the start of the device. */
    public static final long V12_SUPER_OFFSET = 8;
    public static final int MAGIC = 0xa92b4efc;
    public static final long MAX_SECTOR = -1L;

    public static final int FEATURE_BITMAP_OFFSET = 1;
    public static final int FEATURE_RECOVERY_OFFSET = 2;
    public static final int FEATURE_RESHAPE_ACTIVE = 4;
    public static final int FEATURE_BAD_BLOCKS = 8;
    public static final int FEATURE_REPLACEMENT = 16;
    public static final int FEATURE_RESHAPE_BACKWARDS = 32;
    public static final int FEATURE_NEW_OFFSET = 64;
    public static final int FEATURE_RECOVERY_BITMAP = 128;
    public static final int FEATURE_CLUSTERED = 256;
    public static final int FEATURE_JOURNAL = 512;
    public static final int FEATURE_PPL = 1024;
    public static final int FEATURE_MULTIPLE_PPLS = 2048;
    public static final int FEATURE_RAID0_LAYOUT = 4096;
    /** Features whose data Blockwork cannot honour: an array carrying one is not assembled. */
    static final int UNSUPPORTED = FEATURE_RESHAPE_ACTIVE | FEATURE_BAD_BLOCKS | FEATURE_RESHAPE_BACKWARDS
            | FEATURE_NEW_OFFSET | FEATURE_CLUSTERED | FEATURE_JOURNAL | FEATURE_PPL | FEATURE_MULTIPLE_PPLS;

    public static final int ROLE_SPARE = 0xffff;
    public static final int ROLE_FAULTY = 0xfffe;
    public static final int ROLE_JOURNAL = 0xfffd;
    /** Roles below this are slots. */
    public static final int ROLE_MAX = 0xff00;
    /** dev_roles entries a 4 KiB superblock has room for. */
    public static final int MAX_DEVS = (BLOCK - 256) / 2;

    public Superblock {
        if (name.getBytes(StandardCharsets.UTF_8).length > 32) {
            throw new IllegalArgumentException("set_name holds 32 bytes; '" + name + "' is longer");
        }
        if (roles.size() > MAX_DEVS) {
            throw new IllegalArgumentException(roles.size() + " roles; a superblock holds " + MAX_DEVS);
        }
        roles = List.copyOf(roles);
        Objects.requireNonNull(reshape, "reshape (Reshape.NONE when there is none)");
    }

    /** A decoded superblock with the checksum it carried and the one its content gives. */
    public record Decoded(Superblock superblock, int storedChecksum, int expectedChecksum) {
        public boolean checksumCorrect() {
            return storedChecksum == expectedChecksum;
        }
    }

    /* ---- Roles ---- */

    public int maxDev() {
        return roles.size();
    }

    /** The role of member {@code dev}: a slot, or {@link #ROLE_SPARE} beyond {@code max_dev}. */
    public int roleOf(int dev) {
        return dev >= 0 && dev < roles.size() ? roles.get(dev) : ROLE_SPARE;
    }

    /** This member's own role, as mdadm's {@code role_from_sb}. */
    public int ownRole() {
        return roleOf(devNumber);
    }

    public static boolean isSlot(int role) {
        return role < ROLE_MAX;
    }

    /** Whether the member was write-mostly when this superblock was written (md's WriteMostly1). */
    public boolean writeMostly() {
        return (devFlags & DEV_FLAG_WRITE_MOSTLY) != 0;
    }

    /**
     * This superblock with {@code r} under way, as md writes one mid-reshape: the feature bit set and
     * raid_disks the count the array goes to ({@code raid_disks - delta_disks} members before).
     */
    public Superblock reshaping(Reshape r) {
        return new Superblock(featureMap | FEATURE_RESHAPE_ACTIVE, arrayUuid, name, ctime, level, layout, size,
                chunkSectors, raidDisks + r.deltaDisks(), bitmapOffset, r, dataOffset, dataSize, superOffset,
                recoveryOffset, devNumber, deviceUuid, devFlags, bblogShift, bblogSize, bblogOffset, utime, events,
                resyncOffset, roles);
    }

    public boolean has(int feature) {
        return (featureMap & feature) != 0;
    }

    /** The array was not written to when this superblock was (mdadm's "State : clean"). */
    public boolean clean() {
        return resyncOffset == MAX_SECTOR;
    }

    /** The part of {@code set_name} after mdadm's {@code homehost:} prefix. */
    public String shortName() {
        int colon = name.indexOf(':');
        return colon < 0 ? name : name.substring(colon + 1);
    }

    public Instant created() {
        return unpackTime(ctime);
    }

    public Instant updated() {
        return unpackTime(utime);
    }

    /** md's time: seconds in the low 40 bits, microseconds in the top 24. */
    public static long packTime(Instant t) {
        return (t.getEpochSecond() & 0xff_ffff_ffffL) | ((long) (t.getNano() / 1000) << 40);
    }

    public static Instant unpackTime(long packed) {
        long micros = (packed >>> 40) & 0xff_ffff;
        return Instant.ofEpochSecond(packed & 0xff_ffff_ffffL, micros < 1_000_000 ? micros * 1000 : 0);
    }

    /** {@code max_dev} as mdadm sizes it: the roles of {@code devices} numbers, rounded so the superblock fills whole sectors. */
    public static int maxDevFor(int devices) {
        int bytes = 256 + 2 * Math.max(devices, 1);
        return ((bytes + 511) / 512 * 512 - 256) / 2;
    }

    /* ---- Encoding ---- */

    /** The 4 KiB block md writes: the superblock, its checksum, and the unused roles as 0xffff. */
    public byte[] encode() {
        byte[] block = new byte[BLOCK];
        ByteBuffer b = ByteBuffer.wrap(block).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, MAGIC).putInt(4, 1).putInt(8, featureMap);
        arrayUuid.write(block, 16);
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(n, 0, block, 32, n.length);
        b.putLong(64, ctime).putInt(72, level).putInt(76, layout).putLong(80, size).putInt(88, chunkSectors)
                .putInt(92, raidDisks).putInt(96, bitmapOffset);
        reshape.write(b);
        b.putLong(128, dataOffset).putLong(136, dataSize).putLong(144, superOffset).putLong(152, recoveryOffset)
                .putInt(160, devNumber);
        deviceUuid.write(block, 168);
        block[184] = (byte) devFlags;
        block[185] = (byte) bblogShift;
        b.putShort(186, (short) bblogSize).putInt(188, bblogOffset);
        b.putLong(192, utime).putLong(200, events).putLong(208, resyncOffset).putInt(220, roles.size());
        Arrays.fill(block, 256, BLOCK, (byte) 0xff);
        for (int i = 0; i < roles.size(); i++) {
            b.putShort(256 + 2 * i, (short) (int) roles.get(i));
        }
        b.putInt(216, checksum(block));
        return block;
    }

    /** {@code calc_sb_1_csum} of an encoded superblock, with its {@code sb_csum} field taken as zero. */
    public static int checksum(byte[] block) {
        ByteBuffer b = ByteBuffer.wrap(block).order(ByteOrder.LITTLE_ENDIAN);
        int size = 256 + 2 * b.getInt(220);
        long sum = 0;
        int at = 0;
        for (; size - at >= 4; at += 4) {
            sum += at == 216 ? 0 : Integer.toUnsignedLong(b.getInt(at));
        }
        if (size - at == 2) {
            sum += Short.toUnsignedInt(b.getShort(at));
        }
        return (int) ((sum & 0xffff_ffffL) + (sum >>> 32));
    }

    /**
     * Reads the superblock in {@code block} (read from {@code expectedOffset}), as mdadm's
     * {@code load_super1} does: the magic, the major version, the superblock's own offset and
     * {@code max_dev} must be right, else there is no superblock. The checksum is not checked here
     * (mdadm --examine shows a wrong one); assembly refuses it.
     *
     * @throws MetadataException saying what is missing or wrong
     */
    public static Decoded decode(byte[] block, long expectedOffset) {
        if (block.length < BLOCK) {
            throw new IllegalArgumentException("a superblock is read as " + BLOCK + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(block).order(ByteOrder.LITTLE_ENDIAN);
        int magic = b.getInt(0);
        if (magic != MAGIC) {
            boolean blank = isZero(block);
            throw new MetadataException(blank ? "no md superblock (the superblock area is blank)"
                    : String.format("no md superblock (magic is %08x, expected %08x)", magic, MAGIC), blank);
        }
        if (b.getInt(4) != 1) {
            throw new MetadataException("md superblock of major version " + b.getInt(4) + "; only version 1 is read");
        }
        long superOffset = b.getLong(144);
        if (superOffset != expectedOffset) {
            throw new MetadataException("md superblock records offset " + superOffset + " sectors but was read at "
                    + expectedOffset + " (not a v1.2 superblock, or a torn one)");
        }
        int maxDev = b.getInt(220);
        if (maxDev < 0 || maxDev > MAX_DEVS) {
            throw new MetadataException("md superblock has max_dev " + Integer.toUnsignedString(maxDev)
                    + ", more than the " + MAX_DEVS + " a 4 KiB superblock holds (corrupt)");
        }
        List<Integer> roles = new ArrayList<>(maxDev);
        for (int i = 0; i < maxDev; i++) {
            roles.add(Short.toUnsignedInt(b.getShort(256 + 2 * i)));
        }
        int nameEnd = 32;
        while (nameEnd < 64 && block[nameEnd] != 0) {
            nameEnd++;
        }
        Superblock sb = new Superblock(b.getInt(8), MdUuid.of(block, 16),
                new String(block, 32, nameEnd - 32, StandardCharsets.UTF_8), b.getLong(64), b.getInt(72), b.getInt(76),
                b.getLong(80), b.getInt(88), b.getInt(92), b.getInt(96), Reshape.read(b), b.getLong(128), b.getLong(136), superOffset,
                b.getLong(152), b.getInt(160), MdUuid.of(block, 168), block[184] & 0xff, block[185] & 0xff,
                Short.toUnsignedInt(b.getShort(186)), b.getInt(188), b.getLong(192), b.getLong(200), b.getLong(208), roles);
        return new Decoded(sb, b.getInt(216), checksum(block));
    }

    private static boolean isZero(byte[] block) {
        for (int i = 0; i < block.length; i++) {
            if (block[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
