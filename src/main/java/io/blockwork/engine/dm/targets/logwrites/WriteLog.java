package io.blockwork.engine.dm.targets.logwrites;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.BlockIoException;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.dm.targets.logwrites.LogFormat.Flag;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;

/**
 * A dm-log-writes log read from its device ({@link LogFormat}): the super, then entries by index.
 * Entries lie one after the other with no index on disk, so this finds entry {@code i} by walking
 * from the last entry it already knows, and remembers where each one starts. Not thread-safe; the
 * log may be live (a log-writes target appending to it): only the entries the super counted when
 * it was opened are read.
 */
public final class WriteLog {

    /** One entry as logged. {@code sector} and {@code sectors} are in the log's {@code sectorSize}. */
    public record Entry(long index, long sector, long sectors, Set<Flag> flags, String mark, long logOffset,
                        int sectorSize) {

        /** The first byte of the logged device the entry covers. */
        public long offset() {
            return sector * sectorSize;
        }

        /** The bytes it covers. */
        public long length() {
            return sectors * sectorSize;
        }

        public boolean is(Flag f) {
            return flags.contains(f);
        }

        /** True for a FLUSH or FUA entry: a point a crash-consistency check replays to. */
        public boolean durabilityPoint() {
            return is(Flag.FLUSH) || is(Flag.FUA);
        }

        /** True if data follows the entry on the log device. */
        public boolean hasData() {
            return sectors > 0 && !is(Flag.DISCARD) && !is(Flag.MARK);
        }
    }

    private final BlockDevice device;
    private final int sectorSize;
    private final long entryCount;
    /** {@code offsets[i]}: byte offset of entry i on the log device, for i < {@link #known}. */
    private long[] offsets = new long[64];
    private long known;
    private final MemorySegment sector;

    private WriteLog(BlockDevice device, int sectorSize, long entryCount) {
        this.device = device;
        this.sectorSize = sectorSize;
        this.entryCount = entryCount;
        this.sector = MemorySegment.ofArray(new byte[sectorSize]);
        offsets[0] = sectorSize;
        known = entryCount == 0 ? 0 : 1;
    }

    /**
     * Reads the super of the log on {@code device}.
     *
     * @throws WriteLogException if there is no log there (the magic is missing), its version or sector
     *         size is not one this reads, or the device fails the read
     */
    public static WriteLog open(BlockDevice device) {
        int lbs = device.limits().logicalBlockSize();
        if (device.sizeBytes() < lbs) {
            throw new WriteLogException(device.name() + " is too small to hold a write log");
        }
        MemorySegment head = MemorySegment.ofArray(new byte[lbs]);
        read(device, 0, head);
        long magic = LogFormat.u64(head, 0);
        if (magic != LogFormat.MAGIC) {
            throw new WriteLogException(device.name() + " holds no write log: sector 0 has magic 0x"
                    + Long.toHexString(magic) + ", not 0x" + Long.toHexString(LogFormat.MAGIC));
        }
        long version = LogFormat.u64(head, 8);
        if (version != LogFormat.VERSION) {
            throw new WriteLogException("the write log on " + device.name() + " has version " + version
                    + "; this reads version " + LogFormat.VERSION);
        }
        long entries = LogFormat.u64(head, 16);
        int sectorSize = LogFormat.u32(head, 24);
        if (sectorSize < 512 || sectorSize > 65536 || Integer.bitCount(sectorSize) != 1 || sectorSize < lbs) {
            throw new WriteLogException("the write log on " + device.name() + " has a bad sector size " + sectorSize);
        }
        if (entries < 0 || entries > (device.sizeBytes() / sectorSize) - 1) {
            throw new WriteLogException("the write log on " + device.name() + " counts " + Long.toUnsignedString(entries)
                    + " entries, more than its " + device.sizeBytes() + " bytes can hold");
        }
        return new WriteLog(device, sectorSize, entries);
    }

    public BlockDevice device() {
        return device;
    }

    /** Bytes per log sector: the logged device's logical block size. */
    public int sectorSize() {
        return sectorSize;
    }

    /** Entries the super counts. */
    public long entryCount() {
        return entryCount;
    }

    /**
     * Entry {@code index}.
     *
     * @throws IndexOutOfBoundsException if the log has no such entry
     * @throws WriteLogException if the entry, or one before it, is damaged
     */
    public Entry entry(long index) {
        if (index < 0 || index >= entryCount) {
            throw new IndexOutOfBoundsException("entry " + index + " of a log of " + entryCount);
        }
        while (known <= index) {
            Entry e = readAt(known - 1);
            long next = e.logOffset + sectorSize + (e.hasData() ? e.sectors * sectorSize : 0);
            remember(known, next);
        }
        return readAt(index);
    }

    /** The first entry at or after {@code from} that has any of {@code flags}. */
    public Optional<Entry> findNext(long from, Set<Flag> flags) {
        for (long i = Math.max(0, from); i < entryCount; i++) {
            Entry e = entry(i);
            if (e.flags.stream().anyMatch(flags::contains)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /** The first mark called {@code name}. */
    public Optional<Entry> findMark(String name) {
        for (long i = 0; i < entryCount; i++) {
            Entry e = entry(i);
            if (e.is(Flag.MARK) && name.equals(e.mark)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /** Reads the data of {@code e} (which {@link Entry#hasData() has data}) into {@code into}. */
    void readData(Entry e, MemorySegment into) {
        read(device, e.logOffset + sectorSize, into);
    }

    private Entry readAt(long index) {
        long at = offsets[(int) index];
        if (at + sectorSize > device.sizeBytes()) {
            throw damaged(index, "it would start at byte " + at + ", past the end of " + device.name());
        }
        read(device, at, sector);
        long start = LogFormat.u64(sector, 0);
        long count = LogFormat.u64(sector, 8);
        long bits = LogFormat.u64(sector, 16);
        long dataLen = LogFormat.u64(sector, 24);
        Set<Flag> flags = Flag.of(bits);
        if (flags == null) {
            throw damaged(index, "unknown flags 0x" + Long.toHexString(bits));
        }
        String mark = null;
        if (flags.contains(Flag.MARK)) {
            if (dataLen < 0 || dataLen > sectorSize - LogFormat.ENTRY_BYTES) {
                throw damaged(index, "a mark of " + dataLen + " bytes does not fit its sector");
            }
            byte[] name = new byte[(int) dataLen];
            MemorySegment.copy(sector, java.lang.foreign.ValueLayout.JAVA_BYTE, LogFormat.ENTRY_BYTES, name, 0, name.length);
            mark = new String(name, StandardCharsets.UTF_8);
        }
        if (count < 0 || start < 0 || start > Long.MAX_VALUE / sectorSize - count) {
            throw damaged(index, "sectors " + Long.toUnsignedString(start) + "+" + Long.toUnsignedString(count)
                    + " are out of range");
        }
        Entry e = new Entry(index, start, count, flags, mark, at, sectorSize);
        if (e.hasData() && at + sectorSize + count * sectorSize > device.sizeBytes()) {
            throw damaged(index, "its " + count + " sectors of data run past the end of " + device.name());
        }
        return e;
    }

    private void remember(long index, long offset) {
        if (index >= offsets.length) {
            offsets = Arrays.copyOf(offsets, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(index + 1, offsets.length * 2L)));
        }
        offsets[(int) index] = offset;
        known = index + 1;
    }

    private WriteLogException damaged(long index, String why) {
        return new WriteLogException("entry " + index + " of the write log on " + device.name() + " is damaged: " + why);
    }

    private static void read(BlockDevice device, long offset, MemorySegment into) {
        try {
            SyncIo.read(device, offset, into);
        } catch (BlockIoException e) {
            throw new WriteLogException("cannot read the write log on " + device.name() + ": " + e.getMessage(), e);
        }
    }
}
