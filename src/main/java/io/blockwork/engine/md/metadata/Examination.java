package io.blockwork.engine.md.metadata;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * What a device's md metadata says ({@code mdadm --examine} and {@code --examine-bitmap}): its
 * superblock with the checksum it carries and the one its content gives, its bitmap, and whether
 * assembly may use it, with the reason when not.
 *
 * @param device the device's name
 * @param deviceBytes its size
 * @param superblock the decoded superblock; null when there is none
 * @param problem why assembly refuses this device (no superblock, a wrong checksum, data beyond
 *        the device, a feature Blockwork cannot honour); null when it may be used
 * @param blank the superblock area holds only zeros: the device never was a member
 * @param bitmap the bitmap's superblock; null without one (or when it is unreadable)
 * @param bits the bitmap's bits, {@code (chunks + 7) / 8} bytes; null without a bitmap
 * @param bitmapProblem why the bitmap could not be read, or null
 */
public record Examination(String device, long deviceBytes, Superblock.Decoded superblock, String problem, boolean blank,
                          BitmapSuperblock bitmap, byte[] bits, String bitmapProblem) {

    /** Smallest device md metadata fits on (mdadm's 24 sectors). */
    private static final long MIN_BYTES = 24 * 512;

    /** True when assembly may use the device. */
    public boolean usable() {
        return superblock != null && problem == null;
    }

    public Superblock sb() {
        return superblock == null ? null : superblock.superblock();
    }

    /** Bits set in the bitmap. */
    public long dirtyBits() {
        if (bits == null) {
            return 0;
        }
        long n = 0;
        for (byte b : bits) {
            n += Integer.bitCount(b & 0xff);
        }
        return n;
    }

    /** Reads {@code device}'s superblock and bitmap. Blocks; I/O errors become the problem. */
    public static Examination of(BlockDevice device) {
        String name = device.name();
        long size = device.sizeBytes();
        if (size < MIN_BYTES + Superblock.BLOCK) {
            return refused(name, size, null, "the device (" + size + " bytes) is too small for md metadata", false);
        }
        byte[] block = new byte[Superblock.BLOCK];
        IoStatus read = SyncIo.execute(device, BioOp.READ, Superblock.V12_SUPER_OFFSET * 512, block.length, BioFlags.NONE,
                MemorySegment.ofArray(block));
        if (!read.ok()) {
            return refused(name, size, null, "cannot read the superblock (" + read + ")", false);
        }
        Superblock.Decoded decoded;
        try {
            decoded = Superblock.decode(block, Superblock.V12_SUPER_OFFSET);
        } catch (MetadataException e) {
            return refused(name, size, null, e.getMessage(), e.blank());
        }
        Superblock sb = decoded.superblock();
        String problem = problemOf(decoded, size);
        BitmapSuperblock bitmap = null;
        byte[] bits = null;
        String bitmapProblem = null;
        if (sb.has(Superblock.FEATURE_BITMAP_OFFSET)) {
            try {
                long start = (sb.superOffset() + sb.bitmapOffset()) * 512;
                byte[] head = read(device, start, 512);
                bitmap = BitmapSuperblock.decode(head, 0, sb.arrayUuid());
                int area = Math.toIntExact(BitmapSuperblock.areaBytes(bitmap.bits(), 512));
                if (start + area > sb.dataOffset() * 512 || start + area > size) {
                    throw new MetadataException("the bitmap (" + area + " bytes) runs into the data or past the device");
                }
                byte[] all = read(device, start, area);
                bits = Arrays.copyOfRange(all, BitmapSuperblock.SIZE, BitmapSuperblock.SIZE + (int) ((bitmap.bits() + 7) / 8));
            } catch (MetadataException e) {
                bitmap = null;
                bitmapProblem = e.getMessage();
            }
        }
        return new Examination(name, size, decoded, problem, false, bitmap, bits, bitmapProblem);
    }

    private static String problemOf(Superblock.Decoded decoded, long deviceBytes) {
        Superblock sb = decoded.superblock();
        if (!decoded.checksumCorrect()) {
            return String.format("superblock checksum is %08x, expected %08x (torn or corrupt superblock)",
                    decoded.storedChecksum(), decoded.expectedChecksum());
        }
        long sectors = deviceBytes >>> 9;
        boolean journal = sb.ownRole() == Superblock.ROLE_JOURNAL;
        if ((!journal && sectors < sb.dataOffset() + sb.size()) || sectors < sb.dataOffset() + sb.dataSize()) {
            return "the device (" + sectors + " sectors) is not large enough for the data its superblock describes"
                    + " (data offset " + sb.dataOffset() + ", " + Math.max(sb.size(), sb.dataSize()) + " sectors)";
        }
        if (sb.has(Superblock.FEATURE_RESHAPE_ACTIVE)) {
            Reshape r = sb.reshape();
            return "the array is mid-reshape (" + (sb.raidDisks() - r.deltaDisks()) + " to " + sb.raidDisks()
                    + " members, level " + sb.level() + " to " + r.newLevel() + ", " + r.positionSectors()
                    + " sectors done), which Blockwork cannot resume";
        }
        int unsupported = sb.featureMap() & Superblock.UNSUPPORTED;
        if (unsupported != 0) {
            return String.format("the superblock has features 0x%x (reshape, bad blocks, journal, PPL or clustering),"
                    + " which Blockwork does not support", unsupported);
        }
        return null;
    }

    private static byte[] read(BlockDevice device, long offset, int length) {
        byte[] b = new byte[length];
        IoStatus s = SyncIo.execute(device, BioOp.READ, offset, length, BioFlags.NONE, MemorySegment.ofArray(b));
        if (!s.ok()) {
            throw new MetadataException("cannot read the bitmap (" + s + ")");
        }
        return b;
    }

    private static Examination refused(String name, long size, Superblock.Decoded sb, String problem, boolean blank) {
        return new Examination(name, size, sb, problem, blank, null, null, null);
    }
}
