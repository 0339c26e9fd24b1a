package io.blockwork.engine.md.parity;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which {@link ParityKernel} the arrays use, chosen once per process by a short benchmark, as the
 * kernel's {@code calibrate_xor_blocks} and {@code raid6_select_algo} do at boot: every candidate
 * computes raid5's XOR and raid6's P+Q over four 64 KiB data blocks, and the fastest of each
 * wins. The Vector API candidate exists only when the {@code jdk.incubator.vector} module is in
 * the boot layer ({@code --add-modules jdk.incubator.vector}); without it the scalar code runs.
 *
 * <p>A JIT compiles Java parity code while it runs, so each candidate is warmed up before it is
 * timed (the kernel times compiled code): about 0.1 s per candidate in all.
 */
public final class ParitySelection {

    /** The data blocks and size the benchmark uses, as the benchmark does. */
    static final int DATA = 4;
    static final int BLOCK = 64 * 1024;
    private static final long WARM_NANOS = 40_000_000L;
    private static final long TIMED_NANOS = 15_000_000L;

    /** One candidate's figures: data bytes per second through XOR and through P+Q generation. */
    public record Measured(String name, double xorMBps, double raid6MBps) {}

    /**
     * The choice: the kernel for XOR and the one for the raid6 syndrome, with their measured
     * speeds and every candidate's.
     */
    public record Selection(String xorAlgorithm, double xorMBps, String raid6Algorithm, double raid6MBps,
                            boolean vectorAvailable, List<Measured> candidates) {}

    private static final class Holder {
        static final Chosen CHOSEN = choose();
    }

    private record Chosen(ParityKernel xor, ParityKernel raid6, Selection selection) {}

    private ParitySelection() {}

    /** The benchmark's result; runs it on first use. */
    public static Selection selection() {
        return Holder.CHOSEN.selection();
    }

    /** The kernel raid4/5 use. */
    public static ParityKernel xorKernel() {
        return Holder.CHOSEN.xor();
    }

    /** The kernel raid6 uses. */
    public static ParityKernel raid6Kernel() {
        return Holder.CHOSEN.raid6();
    }

    /** True if the Vector API module was given to this JVM. */
    public static boolean vectorAvailable() {
        return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    }

    /** Every kernel this JVM can run, scalar first. */
    public static List<ParityKernel> candidates() {
        List<ParityKernel> out = new ArrayList<>();
        out.add(new ScalarParity());
        if (vectorAvailable()) {
            out.add(new VectorParity());
        }
        return out;
    }

    private static Chosen choose() {
        List<ParityKernel> all = candidates();
        List<Measured> figures = new ArrayList<>();
        for (ParityKernel k : all) {
            figures.add(new Measured(k.name(), measure(k, false, WARM_NANOS, TIMED_NANOS),
                    measure(k, true, WARM_NANOS, TIMED_NANOS)));
        }
        int bestXor = indexOfMax(figures, Comparator.comparingDouble(Measured::xorMBps));
        int bestQ = indexOfMax(figures, Comparator.comparingDouble(Measured::raid6MBps));
        Selection s = new Selection(figures.get(bestXor).name(), figures.get(bestXor).xorMBps(),
                figures.get(bestQ).name(), figures.get(bestQ).raid6MBps(), vectorAvailable(), List.copyOf(figures));
        System.getLogger(ParitySelection.class.getName()).log(System.Logger.Level.INFO,
                "parity: xor " + s.xorAlgorithm() + " (" + Math.round(s.xorMBps()) + " MB/s), raid6 "
                        + s.raid6Algorithm() + " (" + Math.round(s.raid6MBps()) + " MB/s)");
        return new Chosen(all.get(bestXor), all.get(bestQ), s);
    }

    private static int indexOfMax(List<Measured> m, Comparator<Measured> by) {
        int best = 0;
        for (int i = 1; i < m.size(); i++) {
            if (by.compare(m.get(i), m.get(best)) > 0) {
                best = i;
            }
        }
        return best;
    }

    /**
     * Data MB/s (10^6 bytes of the four data blocks per second) of XOR or P+Q generation with
     * {@code k}, after {@code warmNanos} of warm-up, over at least {@code timedNanos}.
     */
    public static double measure(ParityKernel k, boolean raid6, long warmNanos, long timedNanos) {
        MemorySegment[] data = new MemorySegment[DATA];
        long[] offs = new long[DATA];
        for (int i = 0; i < DATA; i++) {
            byte[] b = new byte[BLOCK];
            for (int j = 0; j < BLOCK; j++) {
                b[j] = (byte) (j * 31 + i * 7);
            }
            data[i] = MemorySegment.ofArray(b);
        }
        MemorySegment p = MemorySegment.ofArray(new byte[BLOCK]);
        MemorySegment q = MemorySegment.ofArray(new byte[BLOCK]);
        run(k, raid6, data, offs, p, q, warmNanos);
        long start = System.nanoTime();
        long rounds = run(k, raid6, data, offs, p, q, timedNanos);
        double secs = (System.nanoTime() - start) / 1e9;
        return rounds * (double) DATA * BLOCK / 1e6 / secs;
    }

    private static long run(ParityKernel k, boolean raid6, MemorySegment[] data, long[] offs, MemorySegment p,
                            MemorySegment q, long nanos) {
        long end = System.nanoTime() + nanos;
        long rounds = 0;
        do {
            for (int i = 0; i < 8; i++) {
                if (raid6) {
                    k.genSyndrome(data, offs, DATA, p, 0, q, 0, BLOCK);
                } else {
                    k.xor(data, offs, DATA, p, 0, BLOCK);
                }
            }
            rounds += 8;
        } while (System.nanoTime() < end);
        return rounds;
    }
}
