package io.blockwork.engine.md.parity;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API version (jdk.incubator.vector), at the machine's preferred width: the kernel's
 * SSE2/AVX2/AVX-512 code in one source. Multiply by {2} per byte lane is {@code (v + v)} with 0x1d
 * XORed into the lanes whose top bit was set (a compare and a blend), branch-free, as the
 * kernel's SSE code does it. Ranges shorter
 * than a vector (a tail) fall back to {@link ScalarParity}.
 */
final class VectorParity implements ParityKernel {

    private static final VectorSpecies<Byte> S = ByteVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ScalarParity TAIL = new ScalarParity();

    private static final ByteVector POLY = ByteVector.broadcast(S, (byte) 0x1d);
    private static final ByteVector ZERO = ByteVector.zero(S);

    /**
     * {2} times each byte: {@code v + v} shifts every lane left (x86 has byte adds but no byte
     * shifts), and the lanes whose top bit was set (negative as signed bytes) take 0x1d in.
     */
    static ByteVector mul2(ByteVector v) {
        return v.add(v).lanewise(VectorOperators.XOR, ZERO.blend(POLY, v.compare(VectorOperators.LT, (byte) 0)));
    }

    private static ByteVector load(MemorySegment s, long off) {
        return ByteVector.fromMemorySegment(S, s, off, LE);
    }

    @Override
    public String name() {
        return "vector-" + S.vectorBitSize();
    }

    private static long body(long len) {
        return len - len % S.vectorByteSize();
    }

    /**
     * Bytes of the destination one round of XOR passes covers: small enough that the
     * destination stays in L1 between passes, large enough that each pass is a long loop.
     */
    private static final int PASS = 4096;

    @Override
    public void xor(MemorySegment[] srcs, long[] offs, int n, MemorySegment dst, long dstOff, long len) {
        xorPasses(srcs, offs, n, dst, dstOff, len, false);
    }

    @Override
    public void xorInto(MemorySegment[] srcs, long[] offs, int n, MemorySegment dst, long dstOff, long len) {
        xorPasses(srcs, offs, n, dst, dstOff, len, true);
    }

    /**
     * XOR as passes of two sources at a time over {@link #PASS}-byte pieces of the destination
     * ({@code dst = a ^ b}, then {@code dst ^= c ^ d}, ...), as the kernel's xor_blocks takes its
     * sources a few at a time. Each pass is its own small method with an int-counted loop over
     * fixed segments: the JIT compiles each to straight vector loads and stores with the bounds
     * checks hoisted, and each keeps its own profile. With the four loops inside this method a
     * read-modify-write's one-source pass, never seen while a full-stripe write's two-source passes
     * warmed it up, ran as the Vector API's unintrinsified Java fallback (a third of an rmw
     * write's CPU samples, raid5.md); one loop over all sources per vector ran at a third of the
     * speed of passes.
     */
    private static void xorPasses(MemorySegment[] srcs, long[] offs, int n, MemorySegment dst, long dstOff, long len,
                                  boolean into) {
        long end = body(len);
        for (long from = 0; from < end; from += PASS) {
            int span = (int) Math.min(PASS, end - from);
            boolean fresh = !into;
            int s = 0;
            while (s < n) {
                MemorySegment x = srcs[s];
                long xo = offs[s] + from;
                s++;
                if (x == null) {
                    continue;
                }
                MemorySegment y = null;
                long yo = 0;
                while (s < n && y == null) {
                    y = srcs[s];
                    yo = offs[s] + from;
                    s++;
                }
                long d = dstOff + from;
                if (fresh) {
                    if (y == null) {
                        MemorySegment.copy(x, xo, dst, d, span);
                    } else {
                        xor2(x, xo, y, yo, dst, d, span);
                    }
                    fresh = false;
                } else if (y == null) {
                    xorInto1(x, xo, dst, d, span);
                } else {
                    xorInto2(x, xo, y, yo, dst, d, span);
                }
            }
            if (fresh) {
                // Every source was a hole: the XOR of nothing is zeros.
                dst.asSlice(dstOff + from, span).fill((byte) 0);
            }
        }
        if (end < len) {
            long[] tail = shifted(offs, n, end);
            if (into) {
                TAIL.xorInto(srcs, tail, n, dst, dstOff + end, len - end);
            } else {
                TAIL.xor(srcs, tail, n, dst, dstOff + end, len - end);
            }
        }
    }

    /** {@code dst = x ^ y} over {@code n} bytes, a multiple of the vector size. */
    private static void xor2(MemorySegment x, long xo, MemorySegment y, long yo, MemorySegment dst, long d, int n) {
        for (int i = 0; i < n; i += S.vectorByteSize()) {
            load(x, xo + i).lanewise(VectorOperators.XOR, load(y, yo + i)).intoMemorySegment(dst, d + i, LE);
        }
    }

    /** {@code dst ^= x} over {@code n} bytes. */
    private static void xorInto1(MemorySegment x, long xo, MemorySegment dst, long d, int n) {
        for (int i = 0; i < n; i += S.vectorByteSize()) {
            load(dst, d + i).lanewise(VectorOperators.XOR, load(x, xo + i)).intoMemorySegment(dst, d + i, LE);
        }
    }

    /** {@code dst ^= x ^ y} over {@code n} bytes. */
    private static void xorInto2(MemorySegment x, long xo, MemorySegment y, long yo, MemorySegment dst, long d, int n) {
        for (int i = 0; i < n; i += S.vectorByteSize()) {
            load(dst, d + i).lanewise(VectorOperators.XOR, load(x, xo + i).lanewise(VectorOperators.XOR, load(y, yo + i)))
                    .intoMemorySegment(dst, d + i, LE);
        }
    }

    @Override
    public void genSyndrome(MemorySegment[] data, long[] offs, int width, MemorySegment p, long pOff,
                            MemorySegment q, long qOff, long len) {
        int w = S.vectorByteSize();
        long end = body(len);
        long i = 0;
        for (; i + 2L * w <= end; i += 2L * w) {
            ByteVector p0 = ByteVector.zero(S);
            ByteVector p1 = ByteVector.zero(S);
            ByteVector q0 = ByteVector.zero(S);
            ByteVector q1 = ByteVector.zero(S);
            for (int z = width - 1; z >= 0; z--) {
                q0 = mul2(q0);
                q1 = mul2(q1);
                MemorySegment d = data[z];
                if (d != null) {
                    ByteVector d0 = load(d, offs[z] + i);
                    ByteVector d1 = load(d, offs[z] + i + w);
                    p0 = p0.lanewise(VectorOperators.XOR, d0);
                    p1 = p1.lanewise(VectorOperators.XOR, d1);
                    q0 = q0.lanewise(VectorOperators.XOR, d0);
                    q1 = q1.lanewise(VectorOperators.XOR, d1);
                }
            }
            p0.intoMemorySegment(p, pOff + i, LE);
            p1.intoMemorySegment(p, pOff + i + w, LE);
            q0.intoMemorySegment(q, qOff + i, LE);
            q1.intoMemorySegment(q, qOff + i + w, LE);
        }
        for (; i < end; i += w) {
            ByteVector wp = ByteVector.zero(S);
            ByteVector wq = ByteVector.zero(S);
            for (int z = width - 1; z >= 0; z--) {
                wq = mul2(wq);
                if (data[z] != null) {
                    ByteVector d = load(data[z], offs[z] + i);
                    wp = wp.lanewise(VectorOperators.XOR, d);
                    wq = wq.lanewise(VectorOperators.XOR, d);
                }
            }
            wp.intoMemorySegment(p, pOff + i, LE);
            wq.intoMemorySegment(q, qOff + i, LE);
        }
        if (end < len) {
            TAIL.genSyndrome(data, shifted(offs, width, end), width, p, pOff + end, q, qOff + end, len - end);
        }
    }

    @Override
    public void xorSyndrome(MemorySegment[] data, long[] offs, int start, int stop, MemorySegment p, long pOff,
                            MemorySegment q, long qOff, long len) {
        long end = body(len);
        for (long i = 0; i < end; i += S.vectorByteSize()) {
            ByteVector wp = ByteVector.zero(S);
            ByteVector wq = ByteVector.zero(S);
            for (int z = stop; z >= start; z--) {
                wq = mul2(wq);
                if (data[z] != null) {
                    ByteVector d = load(data[z], offs[z] + i);
                    wp = wp.lanewise(VectorOperators.XOR, d);
                    wq = wq.lanewise(VectorOperators.XOR, d);
                }
            }
            for (int z = start - 1; z >= 0; z--) {
                wq = mul2(wq);
            }
            load(p, pOff + i).lanewise(VectorOperators.XOR, wp).intoMemorySegment(p, pOff + i, LE);
            load(q, qOff + i).lanewise(VectorOperators.XOR, wq).intoMemorySegment(q, qOff + i, LE);
        }
        if (end < len) {
            TAIL.xorSyndrome(data, shifted(offs, stop + 1, end), start, stop, p, pOff + end, q, qOff + end, len - end);
        }
    }

    private static long[] shifted(long[] offs, int n, long by) {
        long[] out = new long[offs.length];
        for (int i = 0; i < n; i++) {
            out[i] = offs[i] + by;
        }
        return out;
    }
}
