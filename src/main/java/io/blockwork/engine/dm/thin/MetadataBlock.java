package io.blockwork.engine.dm.thin;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The metadata device's unit: 4 KiB blocks (the kernel's {@code THIN_METADATA_BLOCK_SIZE}), each
 * beginning with a CRC32C of the rest of the block, salted per block type so that a node can never
 * pass for a superblock. Little-endian throughout.
 */
final class MetadataBlock {

    static final int SIZE = 4096;
    static final int SHIFT = 12;
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Checksum salts (the kernel XORs its checksums the same way). */
    static final int SUPERBLOCK_SALT = 0x5b4b7c1d;
    static final int NODE_SALT = 0x1d7e9a03;

    private MetadataBlock() {}

    /** CRC32C of bytes 4..4095, XOR {@code salt}. */
    static int checksum(byte[] block, int salt) {
        CRC32C crc = new CRC32C();
        crc.update(block, 4, SIZE - 4);
        return (int) crc.getValue() ^ salt;
    }

    /** Stores the checksum in the first four bytes. */
    static void seal(byte[] block, int salt) {
        MemorySegment.ofArray(block).set(U32, 0, checksum(block, salt));
    }

    static boolean sealed(byte[] block, int salt) {
        return MemorySegment.ofArray(block).get(U32, 0) == checksum(block, salt);
    }

    static boolean allZero(byte[] block) {
        for (byte b : block) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
