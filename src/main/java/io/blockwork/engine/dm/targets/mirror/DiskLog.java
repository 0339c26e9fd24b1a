package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.StatusType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * {@code disk <log dev> <region size> [[no]sync]}: the region log on a device, so a crash or a
 * reload resumes where the mirror was: only regions not recorded clean are recovered.
 *
 * <p>On-disk format (Blockwork's own; little-endian, 4 KiB blocks so it suits 512-byte and 4K
 * devices alike):
 * <pre>
 * block 0, the header:
 *   0  8  magic            "BWMIRLOG"
 *   8  4  version          1
 *  12  4  bitmap offset    4096 (bytes)
 *  16  8  region size      sectors
 *  24  8  region count
 *  32  8  target length    sectors
 *  40  4  leg count
 *  44  4  legs fingerprint CRC32C of "&lt;dev name&gt; &lt;offset&gt;\n" for each leg, in table order
 *  48  4  header checksum  CRC32C of bytes 0..47
 *  52  .. zero
 * blocks 1..n, the clean bitmap: region r is byte 4096 + r/8, bit r%8 (least significant first);
 *   1 = clean (in sync, no write in flight when written), 0 = must be recovered. Bits past the
 *   region count are 0. n = ceil(region count / 32768).
 * </pre>
 * At resume the header is read: if it is valid and matches this table (region size and count,
 * target length, the same legs), the bitmap is the state; otherwise the log is new and every
 * region is out of sync (or in sync with {@code nosync}). {@code sync} and {@code nosync} start a
 * new log at every resume, as in dm-log. A new log is written bitmap first, header last, so a
 * crash between the two leaves a log that is still "new".
 *
 * <p>Writes are FUA and cover only the bitmap blocks whose bits changed since the last flush.
 */
final class DiskLog extends DirtyLog {

    static final int BLOCK = 4096;
    static final long REGIONS_PER_BLOCK = BLOCK * 8L;
    static final int VERSION = 1;
    private static final byte[] MAGIC = "BWMIRLOG".getBytes(StandardCharsets.US_ASCII);
    private static final int CHECKED_BYTES = 48;
    /** Largest read while loading the bitmap. */
    private static final int READ_CHUNK_BLOCKS = 256;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final BlockDevice device;
    private final long targetSectors;
    private final int legCount;
    private final int legsFingerprint;
    private final long bitmapBlocks;
    /** Worker only: bitmap blocks changed since the last flush. */
    private final BitSet touchedBlocks = new BitSet();
    private volatile boolean failed;
    private volatile boolean flushFailed;

    DiskLog(BlockDevice device, long regionSectors, long regionCount, Sync sync, List<Leg> legs, long targetSectors) {
        super(regionSectors, regionCount, sync);
        this.device = device;
        this.targetSectors = targetSectors;
        this.legCount = legs.size();
        this.legsFingerprint = fingerprint(legs);
        this.bitmapBlocks = blocksFor(regionCount);
    }

    static long blocksFor(long regionCount) {
        return (regionCount + REGIONS_PER_BLOCK - 1) / REGIONS_PER_BLOCK;
    }

    /** Header plus bitmap. */
    static long bytesNeeded(long regionCount) {
        return BLOCK * (1 + blocksFor(regionCount));
    }

    static int fingerprint(List<Leg> legs) {
        CRC32C crc = new CRC32C();
        for (Leg l : legs) {
            crc.update((l.dev.name() + " " + l.offsetSectors + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return (int) crc.getValue();
    }

    /* ---- Resume: read the log, or start a new one ---- */

    @Override
    void resume(MirrorIo io) {
        touchedBlocks.clear();
        MemorySegment header = MemorySegment.ofArray(new byte[BLOCK]);
        boolean readOk = io.execute(List.of(MirrorIo.Request.read(device, 0, header))).getFirst().ok();
        boolean valid = readOk && sync == Sync.DEFAULT && matches(header) && readBitmap(io);
        if (!readOk) {
            failed = true;
        }
        if (!valid) {
            clean.fill(sync == Sync.NONE);
        }
        loadSyncFromClean();
        if (!valid && readOk) {
            touchedBlocks.set(0, (int) bitmapBlocks);
            if (flush(io)) {
                writeHeader(io);
            }
        }
    }

    private boolean matches(MemorySegment h) {
        if (h.asSlice(0, MAGIC.length).mismatch(MemorySegment.ofArray(MAGIC)) != -1
                || h.get(U32, CHECKED_BYTES) != checksum(h)) {
            return false;
        }
        return h.get(U32, 8) == VERSION && h.get(U32, 12) == BLOCK
                && h.get(WORD, 16) == regionSectors && h.get(WORD, 24) == regionCount
                && h.get(WORD, 32) == targetSectors && h.get(U32, 40) == legCount
                && h.get(U32, 44) == legsFingerprint;
    }

    private static int checksum(MemorySegment h) {
        CRC32C crc = new CRC32C();
        crc.update(h.asSlice(0, CHECKED_BYTES).asByteBuffer());
        return (int) crc.getValue();
    }

    /** Loads the clean bits; false if the device could not be read. */
    private boolean readBitmap(MirrorIo io) {
        for (long first = 0; first < bitmapBlocks; first += READ_CHUNK_BLOCKS) {
            int blocks = (int) Math.min(READ_CHUNK_BLOCKS, bitmapBlocks - first);
            MemorySegment buf = MemorySegment.ofArray(new byte[blocks * BLOCK]);
            if (!io.execute(List.of(MirrorIo.Request.read(device, BLOCK * (1 + first), buf))).getFirst().ok()) {
                failed = true;
                return false;
            }
            int firstWord = (int) (first * (BLOCK / 8));
            for (int w = 0; w < blocks * (BLOCK / 8) && firstWord + w < clean.wordCount(); w++) {
                clean.word(firstWord + w, buf.getAtIndex(WORD, w));
            }
        }
        return true;
    }

    private void writeHeader(MirrorIo io) {
        MemorySegment h = MemorySegment.ofArray(new byte[BLOCK]);
        MemorySegment.copy(MemorySegment.ofArray(MAGIC), 0, h, 0, MAGIC.length);
        h.set(U32, 8, VERSION);
        h.set(U32, 12, BLOCK);
        h.set(WORD, 16, regionSectors);
        h.set(WORD, 24, regionCount);
        h.set(WORD, 32, targetSectors);
        h.set(U32, 40, legCount);
        h.set(U32, 44, legsFingerprint);
        h.set(U32, CHECKED_BYTES, checksum(h));
        if (!io.execute(List.of(MirrorIo.Request.durableWrite(device, 0, h))).getFirst().ok()) {
            failed = true;
        }
    }

    /* ---- Flush: write the changed bitmap blocks ---- */

    @Override
    void touched(long r) {
        touchedBlocks.set((int) (r / REGIONS_PER_BLOCK));
    }

    @Override
    boolean flush(MirrorIo io) {
        if (touchedBlocks.isEmpty()) {
            return true;
        }
        List<MirrorIo.Request> writes = new ArrayList<>();
        for (int b = touchedBlocks.nextSetBit(0); b >= 0; b = touchedBlocks.nextSetBit(b + 1)) {
            writes.add(MirrorIo.Request.durableWrite(device, BLOCK * (1L + b), block(b)));
        }
        List<IoStatus> done = io.execute(writes);
        if (!MirrorIo.allOk(done)) {
            failed = true; // the blocks stay touched: the next flush tries again
            return false;
        }
        touchedBlocks.clear();
        return true;
    }

    /** A copy of bitmap block {@code b}, as stored. */
    private MemorySegment block(int b) {
        MemorySegment buf = MemorySegment.ofArray(new byte[BLOCK]);
        int firstWord = b * (BLOCK / 8);
        for (int w = 0; w < BLOCK / 8 && firstWord + w < clean.wordCount(); w++) {
            buf.setAtIndex(WORD, w, clean.word(firstWord + w));
        }
        return buf;
    }

    /* ---- Description ---- */

    @Override
    boolean persistent() {
        return true;
    }

    @Override
    BlockDevice device() {
        return device;
    }

    @Override
    void flushFailed() {
        flushFailed = true;
    }

    @Override
    String status(StatusType type) {
        return switch (type) {
            case INFO -> "3 disk " + device.name() + " " + (flushFailed ? 'F' : failed ? 'D' : 'A');
            case TABLE -> "disk " + (2 + syncArgs()) + " " + device.name() + " " + regionAndSync();
        };
    }

    @Override
    List<DeviceRange> devices() {
        return List.of(new DeviceRange(device, 0, bytesNeeded(regionCount) >> 9));
    }
}
