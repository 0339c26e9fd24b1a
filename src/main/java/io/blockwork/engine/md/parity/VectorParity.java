package io.blockwork.engine.md.parity;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API version (jdk.incubator.vector), at the machine's preferred width: the kernel's
 * SSE2/AVX2/AVX-512 code in one source. Multiply by {2} per byte lane is
 * {@code (v << 1) ^ ((v >> 7) & 0x1d)} with an arithmetic shift, branch-free. Ranges shorter
 * than a vector (a tail) fall back to {@link ScalarParity}.
 */
final class VectorParity implements ParityKernel {

    private static final VectorSpecies<Byte> S = ByteVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ScalarParity TAIL = new ScalarParity();

    static ByteVector mul2(ByteVector v) {
        return v.lanewise(VectorOperators.LSHL, 1).lanewise(VectorOperators.XOR,
                v.lanewise(VectorOperators.ASHR, 7).lanewise(VectorOperators.AND, (byte) 0x1d));
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

    @Override
    public void xor(MemorySegment[] srcs, long[] offs, int n, MemorySegment dst, long dstOff, long len) {
        long end = body(len);
        for (long i = 0; i < end; i += S.vectorByteSize()) {
            ByteVector v = ByteVector.zero(S);
            for (int s = 0; s < n; s++) {
                if (srcs[s] != null) {
                    v = v.lanewise(VectorOperators.XOR, load(srcs[s], offs[s] + i));
                }
            }
            v.intoMemorySegment(dst, dstOff + i, LE);
        }
        if (end < len) {
            TAIL.xor(srcs, shifted(offs, n, end), n, dst, dstOff + end, len - end);
        }
    }

    @Override
    public void xorInto(MemorySegment[] srcs, long[] offs, int n, MemorySegment dst, long dstOff, long len) {
        long end = body(len);
        for (long i = 0; i < end; i += S.vectorByteSize()) {
            ByteVector v = load(dst, dstOff + i);
            for (int s = 0; s < n; s++) {
                if (srcs[s] != null) {
                    v = v.lanewise(VectorOperators.XOR, load(srcs[s], offs[s] + i));
                }
            }
            v.intoMemorySegment(dst, dstOff + i, LE);
        }
        if (end < len) {
            TAIL.xorInto(srcs, shifted(offs, n, end), n, dst, dstOff + end, len - end);
        }
    }

    @Override
    public void genSyndrome(MemorySegment[] data, long[] offs, int width, MemorySegment p, long pOff,
                            MemorySegment q, long qOff, long len) {
        long end = body(len);
        for (long i = 0; i < end; i += S.vectorByteSize()) {
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
