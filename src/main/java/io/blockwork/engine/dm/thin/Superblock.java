package io.blockwork.engine.dm.thin;

import static io.blockwork.engine.dm.thin.MetadataBlock.U32;
import static io.blockwork.engine.dm.thin.MetadataBlock.U64;

import java.lang.foreign.MemorySegment;

/**
 * Block 0 of the metadata device: where the committed trees are. Writing it (with PREFLUSH and
 * FUA, after every block it names) is the commit point; everything else on the device is written
 * only to blocks the last committed superblock does not reach. It fits in the first 512 bytes, so
 * a sector-atomic device never tears it, and its checksum catches a torn write anyway.
 *
 * <pre>
 *   0  u32 csum          CRC32C of bytes 4..4095 (salted)
 *   4  u32 flags         bit 0: needs_check
 *   8  u64 blocknr       0
 *  16  u64 magic         "BWTHINMD"
 *  24  u32 version       1
 *  28  u32 node capacity entries per B-tree node (254 for 4 KiB nodes)
 *  32  u64 commit        commits so far
 *  40  u64 transaction   the user's transaction id (set_transaction_id)
 *  48  u32 data block    data block size in sectors
 *  52  u32 time          pool time (snapshots taken so far, 24 bits)
 *  56  u64 data blocks   data blocks the pool may allocate
 *  64  u64 meta blocks   metadata blocks the pool may use
 *  72  u64 devices root  dev id → mapping tree root
 *  80  u64 details root  dev id → mapped blocks and snapshot time
 *  88  u64 refcounts     data block → reference count
 *  96  u64 held root     block of the held metadata snapshot, 0 for none
 * </pre>
 */
record Superblock(int flags, int nodeCapacity, long commit, long transactionId, int dataBlockSectors, int time,
                  long dataBlocks, long metadataBlocks, long devicesRoot, long detailsRoot, long refcountRoot,
                  long heldRoot) {

    static final long MAGIC = 0x444d4e4948545742L; // "BWTHINMD" little-endian
    static final int VERSION = 1;
    static final int NEEDS_CHECK = 1;

    boolean needsCheck() {
        return (flags & NEEDS_CHECK) != 0;
    }

    byte[] encode() {
        byte[] b = new byte[MetadataBlock.SIZE];
        MemorySegment m = MemorySegment.ofArray(b);
        m.set(U32, 4, flags);
        m.set(U64, 8, 0L);
        m.set(U64, 16, MAGIC);
        m.set(U32, 24, VERSION);
        m.set(U32, 28, nodeCapacity);
        m.set(U64, 32, commit);
        m.set(U64, 40, transactionId);
        m.set(U32, 48, dataBlockSectors);
        m.set(U32, 52, time);
        m.set(U64, 56, dataBlocks);
        m.set(U64, 64, metadataBlocks);
        m.set(U64, 72, devicesRoot);
        m.set(U64, 80, detailsRoot);
        m.set(U64, 88, refcountRoot);
        m.set(U64, 96, heldRoot);
        MetadataBlock.seal(b, MetadataBlock.SUPERBLOCK_SALT);
        return b;
    }

    /**
     * Decodes block 0, checking checksum, magic and version.
     *
     * @throws ThinException naming what is wrong, for a message the user can act on
     */
    static Superblock decode(byte[] b, String device) throws ThinException {
        MemorySegment m = MemorySegment.ofArray(b);
        if (m.get(U64, 16) != MAGIC) {
            throw new ThinException(String.format("metadata device '%s' has no thin pool superblock (magic 0x%016x);"
                    + " zero its first 4 KiB to format it", device, m.get(U64, 16)));
        }
        if (!MetadataBlock.sealed(b, MetadataBlock.SUPERBLOCK_SALT)) {
            throw new ThinException("superblock checksum failed on metadata device '" + device + "'");
        }
        int version = m.get(U32, 24);
        if (version != VERSION) {
            throw new ThinException("metadata device '" + device + "' has metadata version " + Integer.toUnsignedString(version)
                    + "; this pool reads version " + VERSION);
        }
        return new Superblock(m.get(U32, 4), m.get(U32, 28), m.get(U64, 32), m.get(U64, 40), m.get(U32, 48),
                m.get(U32, 52), m.get(U64, 56), m.get(U64, 64), m.get(U64, 72), m.get(U64, 80), m.get(U64, 88),
                m.get(U64, 96));
    }
}
