package io.blockwork.engine.dm.targets.logwrites;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;

/**
 * The on-disk format of a dm-log-writes log, as the kernel writes it and {@code replay-log}
 * reads it (little-endian):
 * <pre>
 * log sector 0      super: u64 magic 0x6a736677736872, u64 version 1, u64 nr_entries, u32 sectorsize
 * then, nr_entries times:
 *   1 log sector    entry: u64 sector, u64 nr_sectors, u64 flags, u64 data_len; a MARK's name
 *                   (data_len bytes, no NUL) follows in the same sector
 *   nr_sectors      the data written, unless the entry is a DISCARD (or has no sectors)
 * </pre>
 * A "log sector" is {@code sectorsize} bytes, the logical block size of the logged device;
 * {@code sector} and {@code nr_sectors} count in it too. Entries are in log order: a write
 * appears once it and a later flush completed (or at once for FUA), followed by that flush.
 */
public final class LogFormat {

    public static final long MAGIC = 0x6a736677736872L;
    public static final long VERSION = 1;
    /** Bytes of an entry's fixed fields; a mark's name starts here. */
    public static final int ENTRY_BYTES = 32;
    /** Bytes of the super's fields. */
    static final int SUPER_BYTES = 28;
    /** The name the target logs as its last entry when its table is dropped, as the kernel does. */
    public static final String END_MARK = "dm-log-writes-end";

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private LogFormat() {}

    /** An entry's flags, with their bits on disk. */
    public enum Flag {
        /** A flush: every entry before it was durable once it completed. */
        FLUSH(1),
        /** A write with forced unit access: durable when it completed. */
        FUA(2),
        /** A discard (Blockwork also logs write-zeroes so); no data follows, replay zeroes the range. */
        DISCARD(4),
        /** A named point, sent with the {@code mark} message. */
        MARK(8),
        /** A metadata write (the kernel's REQ_META); Blockwork's bios carry no such hint. */
        METADATA(16);

        final long bit;

        Flag(long bit) {
            this.bit = bit;
        }

        static long bits(Set<Flag> flags) {
            long b = 0;
            for (Flag f : flags) {
                b |= f.bit;
            }
            return b;
        }

        /** The flags set in {@code bits}; null if a bit is set that no flag has. */
        static Set<Flag> of(long bits) {
            EnumSet<Flag> s = EnumSet.noneOf(Flag.class);
            for (Flag f : values()) {
                if ((bits & f.bit) != 0) {
                    s.add(f);
                    bits &= ~f.bit;
                }
            }
            return bits == 0 ? s : null;
        }
    }

    /** Writes the super's fields at the start of {@code sector} (the rest is left as it is: zero). */
    static void encodeSuper(byte[] sector, long entries, int sectorSize) {
        MemorySegment s = MemorySegment.ofArray(sector);
        s.set(U64, 0, MAGIC);
        s.set(U64, 8, VERSION);
        s.set(U64, 16, entries);
        s.set(U32, 24, sectorSize);
    }

    /** Writes an entry's fields, and a mark's name after them, at the start of {@code buffer}. */
    static void encodeEntry(byte[] buffer, long sector, long nrSectors, Set<Flag> flags, byte[] markName) {
        MemorySegment s = MemorySegment.ofArray(buffer);
        s.set(U64, 0, sector);
        s.set(U64, 8, nrSectors);
        s.set(U64, 16, Flag.bits(flags));
        s.set(U64, 24, markName == null ? 0 : markName.length);
        if (markName != null) {
            System.arraycopy(markName, 0, buffer, ENTRY_BYTES, markName.length);
        }
    }

    static long u64(MemorySegment s, long at) {
        return s.get(U64, at);
    }

    static int u32(MemorySegment s, long at) {
        return s.get(U32, at);
    }

    /** A mark's name as the kernel stores it: at most {@code sectorSize - 33} bytes of UTF-8. */
    static byte[] markName(String name, int sectorSize) {
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        int max = sectorSize - ENTRY_BYTES - 1;
        if (b.length <= max) {
            return b;
        }
        byte[] cut = new byte[max];
        System.arraycopy(b, 0, cut, 0, max);
        return cut;
    }
}
