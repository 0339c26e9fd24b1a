package io.blockwork.engine.md.parity;

import java.lang.foreign.MemorySegment;

/**
 * One implementation of the parity maths (the kernel's xor "template" and raid6 "algorithm"): XOR
 * for raid4/5's P, and lib/raid6's P+Q syndrome over GF(2^8) with generator {2} and polynomial
 * 0x11d. Which one an array uses is {@link ParitySelection}'s start-up benchmark's choice.
 *
 * <p>Every range is {@code len} bytes at an offset into a segment; {@code len} is a multiple of 8.
 * A null source stands for a block of zeros (a DDF layout's P and Q holes, a member treated as
 * empty). Sources and destinations must not overlap.
 */
public sealed interface ParityKernel permits ScalarParity, VectorParity {

    /** The name shown by {@code GET /api/v1/system} ("scalar-int64x4", "vector-256"). */
    String name();

    /** {@code dst = srcs[0] ^ ... ^ srcs[n-1]}. */
    void xor(MemorySegment[] srcs, long[] offs, int n, MemorySegment dst, long dstOff, long len);

    /** {@code dst ^= srcs[0] ^ ... ^ srcs[n-1]}. */
    void xorInto(MemorySegment[] srcs, long[] offs, int n, MemorySegment dst, long dstOff, long len);

    /**
     * lib/raid6's {@code gen_syndrome}: {@code P = sum data[z]}, {@code Q = sum g^z * data[z]} over
     * the slots {@code 0..width-1}.
     */
    void genSyndrome(MemorySegment[] data, long[] offs, int width, MemorySegment p, long pOff,
                     MemorySegment q, long qOff, long len);

    /**
     * lib/raid6's {@code xor_syndrome}: {@code P ^= sum data[z]}, {@code Q ^= sum g^z * data[z]}
     * over the slots {@code start..stop} only (the others count as zero). Run once with a block's
     * old data and once with its new data, it moves P and Q from the one to the other
     * (read-modify-write).
     */
    void xorSyndrome(MemorySegment[] data, long[] offs, int start, int stop, MemorySegment p, long pOff,
                     MemorySegment q, long qOff, long len);
}
