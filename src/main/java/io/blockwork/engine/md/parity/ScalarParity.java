package io.blockwork.engine.md.parity;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;

/**
 * The fallback: lib/raid6's portable {@code int64} code, eight bytes at a time in a long. Multiply
 * by {2} of every byte at once: shift left within each byte, and XOR 0x1d into the bytes whose
 * top bit was set ({@code MASK} turns each such byte into 0xff).
 */
final class ScalarParity implements ParityKernel {

    private static final long HIGH = 0x8080808080808080L;
    private static final long LOW7 = 0xfefefefefefefefeL;
    private static final long POLY = 0x1d1d1d1d1d1d1d1dL;

    static long mul2(long v) {
        long high = v & HIGH;
        long mask = (high << 1) - (high >>> 7);
        return ((v << 1) & LOW7) ^ (mask & POLY);
    }

    @Override
    public String name() {
        return "scalar-int64";
    }

    @Override
    public void xor(MemorySegment[] srcs, long[] offs, int n, MemorySegment dst, long dstOff, long len) {
        for (long i = 0; i < len; i += 8) {
            long v = 0;
            for (int s = 0; s < n; s++) {
                if (srcs[s] != null) {
                    v ^= srcs[s].get(JAVA_LONG_UNALIGNED, offs[s] + i);
                }
            }
            dst.set(JAVA_LONG_UNALIGNED, dstOff + i, v);
        }
    }

    @Override
    public void xorInto(MemorySegment[] srcs, long[] offs, int n, MemorySegment dst, long dstOff, long len) {
        for (long i = 0; i < len; i += 8) {
            long v = dst.get(JAVA_LONG_UNALIGNED, dstOff + i);
            for (int s = 0; s < n; s++) {
                if (srcs[s] != null) {
                    v ^= srcs[s].get(JAVA_LONG_UNALIGNED, offs[s] + i);
                }
            }
            dst.set(JAVA_LONG_UNALIGNED, dstOff + i, v);
        }
    }

    @Override
    public void genSyndrome(MemorySegment[] data, long[] offs, int width, MemorySegment p, long pOff,
                            MemorySegment q, long qOff, long len) {
        for (long i = 0; i < len; i += 8) {
            long wp = 0;
            long wq = 0;
            for (int z = width - 1; z >= 0; z--) {
                long d = data[z] == null ? 0 : data[z].get(JAVA_LONG_UNALIGNED, offs[z] + i);
                wp ^= d;
                wq = mul2(wq) ^ d;
            }
            p.set(JAVA_LONG_UNALIGNED, pOff + i, wp);
            q.set(JAVA_LONG_UNALIGNED, qOff + i, wq);
        }
    }

    @Override
    public void xorSyndrome(MemorySegment[] data, long[] offs, int start, int stop, MemorySegment p, long pOff,
                            MemorySegment q, long qOff, long len) {
        for (long i = 0; i < len; i += 8) {
            long wp = 0;
            long wq = 0;
            for (int z = stop; z >= start; z--) {
                long d = data[z] == null ? 0 : data[z].get(JAVA_LONG_UNALIGNED, offs[z] + i);
                wp ^= d;
                wq = mul2(wq) ^ d;
            }
            for (int z = start - 1; z >= 0; z--) {
                wq = mul2(wq);
            }
            p.set(JAVA_LONG_UNALIGNED, pOff + i, p.get(JAVA_LONG_UNALIGNED, pOff + i) ^ wp);
            q.set(JAVA_LONG_UNALIGNED, qOff + i, q.get(JAVA_LONG_UNALIGNED, qOff + i) ^ wq);
        }
    }
}
