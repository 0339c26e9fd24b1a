package io.blockwork.engine.workload;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * The data a verifying workload writes: a 32-byte header (magic, device offset, generation, CRC32C
 * of the payload) and a payload drawn from a generator seeded by (seed, offset, generation). A
 * block read back is compared byte for byte with a regenerated copy, which catches lost writes
 * (an older generation), misdirected ones (another offset) and torn ones alike; the checksum lets
 * a block be recognised as ours without knowing its history. Public for verifying clients outside
 * this package (the crash-replay and fault suites), which decide for themselves what they expect.
 */
public final class VerifyPattern {

    static final int HEADER = 32;
    private static final long MAGIC = 0x594652564b4c4242L; // "BBLKVRFY" little-endian

    private VerifyPattern() {}

    /** Fills {@code block} with what generation {@code generation} writes at {@code offset}. */
    public static void fill(MemorySegment block, long seed, long offset, int generation) {
        long state = mix(seed ^ mix(offset) ^ ((long) generation << 32));
        long size = block.byteSize();
        for (long at = HEADER; at + 8 <= size; at += 8) {
            state += 0x9E3779B97F4A7C15L;
            block.set(JAVA_LONG_UNALIGNED, at, mix(state));
        }
        CRC32C crc = new CRC32C();
        crc.update(block.asSlice(HEADER).asByteBuffer());
        block.set(JAVA_LONG_UNALIGNED, 0, MAGIC);
        block.set(JAVA_LONG_UNALIGNED, 8, offset);
        block.set(JAVA_LONG_UNALIGNED, 16, generation);
        block.set(JAVA_LONG_UNALIGNED, 24, 0);
        block.set(JAVA_INT_UNALIGNED, 24, (int) crc.getValue());
    }

    /** Null if {@code block} is what generation {@code generation} wrote at {@code offset}, else why not. */
    public static String check(MemorySegment block, MemorySegment scratch, long seed, long offset, int generation) {
        fill(scratch, seed, offset, generation);
        long at = block.mismatch(scratch);
        if (at == -1) {
            return null;
        }
        long magic = block.get(JAVA_LONG_UNALIGNED, 0);
        if (magic != MAGIC) {
            return "offset " + offset + ": no verify header (byte " + at + " differs)";
        }
        long foundOffset = block.get(JAVA_LONG_UNALIGNED, 8);
        long foundGeneration = block.get(JAVA_LONG_UNALIGNED, 16);
        if (foundOffset != offset) {
            return "offset " + offset + ": holds the block written for offset " + foundOffset;
        }
        if (foundGeneration != generation) {
            return "offset " + offset + ": holds generation " + foundGeneration + ", expected " + generation;
        }
        return "offset " + offset + ": payload differs at byte " + at;
    }

    /**
     * Which generation {@code block} holds: 0 if it is all zeros (never written), the generation if
     * it is exactly what that generation wrote at {@code offset}, else -1 (torn, misdirected,
     * corrupt or foreign). {@code scratch} is a buffer of the same size.
     */
    public static long generationOf(MemorySegment block, MemorySegment scratch, long seed, long offset) {
        long magic = block.get(JAVA_LONG_UNALIGNED, 0);
        if (magic != MAGIC) {
            scratch.fill((byte) 0);
            return block.mismatch(scratch) == -1 ? 0 : -1;
        }
        long generation = block.get(JAVA_LONG_UNALIGNED, 16);
        if (generation <= 0 || generation > Integer.MAX_VALUE) {
            return -1;
        }
        return check(block, scratch, seed, offset, (int) generation) == null ? generation : -1;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
