package io.blockwork.engine.md.parity;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Every kernel agrees with the definitions (XOR; Q = sum g^z D_z), and lib/raid6's recovery inverts them. */
@Tag("unit")
class ParityKernelTest {

    private static MemorySegment random(Random r, int len) {
        byte[] b = new byte[len];
        r.nextBytes(b);
        return MemorySegment.ofArray(b);
    }

    @Test
    void theVectorKernelIsThereWithTheModuleFlag() {
        assertThat(ParitySelection.vectorAvailable()).as("--add-modules jdk.incubator.vector").isTrue();
        assertThat(ParitySelection.candidates()).hasSize(2);
        ParitySelection.Selection s = ParitySelection.awaitSelection();
        assertThat(s.candidates()).extracting(ParitySelection.Measured::name).contains("scalar-int64");
        assertThat(s.xorMBps()).isPositive();
    }

    @Test
    void everyKernelComputesPAndQAsDefined() {
        Random r = new Random(3);
        int width = 6;
        int len = 4096 + 24;
        MemorySegment[] data = new MemorySegment[width];
        long[] offs = new long[width];
        for (int z = 0; z < width; z++) {
            data[z] = z == 2 ? null : random(r, len + 8);
            offs[z] = z == 2 ? 0 : 8;
        }
        byte[] p = new byte[len];
        byte[] q = new byte[len];
        for (int i = 0; i < len; i++) {
            int[] bytes = new int[width];
            for (int z = 0; z < width; z++) {
                bytes[z] = data[z] == null ? 0 : data[z].get(java.lang.foreign.ValueLayout.JAVA_BYTE, 8 + i) & 0xff;
                p[i] ^= (byte) bytes[z];
            }
            q[i] = (byte) Gf256.q(bytes);
        }
        for (ParityKernel k : ParitySelection.candidates()) {
            MemorySegment gp = MemorySegment.ofArray(new byte[len]);
            MemorySegment gq = MemorySegment.ofArray(new byte[len]);
            k.genSyndrome(data, offs, width, gp, 0, gq, 0, len);
            assertThat(gp.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).as(k.name() + " P").isEqualTo(p);
            assertThat(gq.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).as(k.name() + " Q").isEqualTo(q);
            MemorySegment x = MemorySegment.ofArray(new byte[len]);
            k.xor(data, offs, width, x, 0, len);
            assertThat(x.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).as(k.name() + " xor").isEqualTo(p);
            // rmw: taking slot 4's contribution out and putting it back leaves P and Q as they were;
            // taking it out alone equals the syndrome without it.
            k.xorSyndrome(data, offs, 4, 4, gp, 0, gq, 0, len);
            MemorySegment[] without = data.clone();
            without[4] = null;
            MemorySegment wp = MemorySegment.ofArray(new byte[len]);
            MemorySegment wq = MemorySegment.ofArray(new byte[len]);
            k.genSyndrome(without, offs, width, wp, 0, wq, 0, len);
            assertThat(gq.mismatch(wq)).as(k.name() + " xor_syndrome").isEqualTo(-1L);
            k.xorSyndrome(data, offs, 4, 4, gp, 0, gq, 0, len);
            assertThat(gq.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).isEqualTo(q);
        }
    }

    /**
     * XOR and XOR-into over every source count from none to seven, holes anywhere (the vector
     * code takes sources two at a time, so odd counts and holes change its passes), lengths
     * across its 4 KiB pieces and with a tail, at offsets into the destination.
     */
    @Test
    void xorAndXorIntoAgreeWithBytewiseXorForAnySourcesAndHoles() {
        Random r = new Random(5);
        for (int n = 0; n <= 7; n++) {
            for (int holes = 0; holes < 1 << n; holes += Math.max(1, (1 << n) / 8)) {
                int len = 2 * 4096 + 8 * (1 + r.nextInt(600));
                MemorySegment[] srcs = new MemorySegment[n];
                long[] offs = new long[n];
                byte[] want = new byte[len];
                for (int s = 0; s < n; s++) {
                    if ((holes & 1 << s) != 0) {
                        continue;
                    }
                    offs[s] = 8L * r.nextInt(4);
                    srcs[s] = random(r, len + 32);
                    for (int i = 0; i < len; i++) {
                        want[i] ^= srcs[s].get(java.lang.foreign.ValueLayout.JAVA_BYTE, offs[s] + i);
                    }
                }
                MemorySegment before = random(r, len);
                byte[] wantInto = before.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                for (int i = 0; i < len; i++) {
                    wantInto[i] ^= want[i];
                }
                for (ParityKernel k : ParitySelection.candidates()) {
                    String what = k.name() + " n=" + n + " holes=" + Integer.toBinaryString(holes) + " len=" + len;
                    MemorySegment dst = random(r, len + 16);
                    k.xor(srcs, offs, n, dst, 16, len);
                    assertThat(dst.asSlice(16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).as(what + " xor").isEqualTo(want);
                    MemorySegment into = MemorySegment.ofArray(new byte[len + 8]);
                    MemorySegment.copy(before, 0, into, 8, len);
                    k.xorInto(srcs, offs, n, into, 8, len);
                    assertThat(into.asSlice(8).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).as(what + " xorInto").isEqualTo(wantInto);
                }
            }
        }
    }

    @Test
    void twoLostDataBlocksAreRecovered() {
        Random r = new Random(4);
        int len = 512;
        int width = 5;
        MemorySegment[] data = new MemorySegment[width];
        for (int z = 0; z < width; z++) {
            data[z] = random(r, len);
        }
        long[] offs = new long[width];
        MemorySegment p = MemorySegment.ofArray(new byte[len]);
        MemorySegment q = MemorySegment.ofArray(new byte[len]);
        ParityKernel k = ParitySelection.candidates().getFirst();
        k.genSyndrome(data, offs, width, p, 0, q, 0, len);
        int x = 1;
        int y = 3;
        MemorySegment[] lost = data.clone();
        lost[x] = null;
        lost[y] = null;
        MemorySegment pp = MemorySegment.ofArray(new byte[len]);
        MemorySegment qq = MemorySegment.ofArray(new byte[len]);
        k.genSyndrome(lost, offs, width, pp, 0, qq, 0, len);
        k.xorInto(new MemorySegment[] {p}, new long[1], 1, pp, 0, len);
        k.xorInto(new MemorySegment[] {q}, new long[1], 1, qq, 0, len);
        MemorySegment dx = MemorySegment.ofArray(new byte[len]);
        MemorySegment dy = MemorySegment.ofArray(new byte[len]);
        Gf256.recoverTwoData(x, y, pp, 0, qq, 0, dx, 0, dy, 0, len);
        assertThat(dx.mismatch(data[x])).isEqualTo(-1L);
        assertThat(dy.mismatch(data[y])).isEqualTo(-1L);
    }
}
