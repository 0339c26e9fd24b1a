package io.blockwork.engine.md.parity;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GF(2^8) with polynomial x^8+x^4+x^3+x^2+1 (0x11d) and generator {2}, as lib/raid6's tables:
 * exponent and logarithm tables, and the two-failure recovery of {@code raid6_2data_recov} and
 * {@code raid6_datap_recov}. Recovery runs only on degraded paths, byte by byte from tables.
 */
public final class Gf256 {

    private static final int[] EXP = new int[512];
    private static final int[] LOG = new int[256];

    static {
        int x = 1;
        for (int i = 0; i < 255; i++) {
            EXP[i] = x;
            LOG[x] = i;
            x <<= 1;
            if ((x & 0x100) != 0) {
                x ^= 0x11d;
            }
        }
        for (int i = 255; i < 512; i++) {
            EXP[i] = EXP[i - 255];
        }
    }

    private Gf256() {}

    public static int mul(int a, int b) {
        return a == 0 || b == 0 ? 0 : EXP[LOG[a] + LOG[b]];
    }

    /** {@code g^e}. */
    public static int pow2(int e) {
        return EXP[Math.floorMod(e, 255)];
    }

    public static int inv(int a) {
        if (a == 0) {
            throw new ArithmeticException("0 has no inverse");
        }
        return EXP[255 - LOG[a]];
    }

    /** One byte of Q over {@code bytes[z]} at slots {@code z}: the definition, for tests. */
    public static int q(int... bytes) {
        int q = 0;
        for (int z = 0; z < bytes.length; z++) {
            q ^= mul(pow2(z), bytes[z] & 0xff);
        }
        return q;
    }

    /** {@code dst[i] = c * src[i]} for {@code len} bytes. */
    public static void mulInto(int c, MemorySegment src, long srcOff, MemorySegment dst, long dstOff, long len) {
        for (long i = 0; i < len; i++) {
            int v = src.get(ValueLayout.JAVA_BYTE, srcOff + i) & 0xff;
            dst.set(ValueLayout.JAVA_BYTE, dstOff + i, (byte) mul(c, v));
        }
    }

    /**
     * Two lost data slots {@code x < y} (raid6_2data_recov): with {@code pxy = P ^ P'} and
     * {@code qxy = Q ^ Q'} (P', Q' computed with x and y as zeros),
     * {@code Dx = A*pxy ^ B*qxy} where {@code A = g^(y-x) / (g^(y-x) ^ 1)} and
     * {@code B = g^-x / (g^(y-x) ^ 1)}; then {@code Dy = pxy ^ Dx}. Results go to {@code dx}, {@code dy}.
     */
    public static void recoverTwoData(int x, int y, MemorySegment pxy, long pOff, MemorySegment qxy, long qOff,
                                      MemorySegment dx, long dxOff, MemorySegment dy, long dyOff, long len) {
        int gyx = pow2(y - x);
        int denom = inv(gyx ^ 1);
        int a = mul(gyx, denom);
        int b = mul(pow2(-x), denom);
        for (long i = 0; i < len; i++) {
            int p = pxy.get(ValueLayout.JAVA_BYTE, pOff + i) & 0xff;
            int q = qxy.get(ValueLayout.JAVA_BYTE, qOff + i) & 0xff;
            int vx = mul(a, p) ^ mul(b, q);
            dx.set(ValueLayout.JAVA_BYTE, dxOff + i, (byte) vx);
            dy.set(ValueLayout.JAVA_BYTE, dyOff + i, (byte) (p ^ vx));
        }
    }
}
