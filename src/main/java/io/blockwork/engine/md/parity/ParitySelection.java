package io.blockwork.engine.md.parity;

import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Which {@link ParityKernel} the arrays use, chosen once per process by a short benchmark, as the
 * kernel's {@code calibrate_xor_blocks} and {@code raid6_select_algo} do at boot: every candidate
 * computes raid5's XOR and raid6's P+Q over four 64 KiB data blocks, and the fastest of each
 * wins. The candidates are timed together, in interleaved rounds of short slices, each keeping its
 * best ({@link BestOfRounds}), so a stretch when the machine is slow cannot make one of them look
 * slow. The Vector API candidate exists only when the {@code jdk.incubator.vector} module is in
 * the boot layer ({@code --add-modules jdk.incubator.vector}); without it the scalar code runs.
 *
 * <p>Unlike the kernel's, this benchmark runs beside the service on a thread of its own
 * ({@link #start}): arrays use the scalar code until it has chosen, then switch (a kernel is read
 * per operation), and {@code GET /api/v1/system} shows "measuring" until then.
 *
 * <p>A JIT compiles Java parity code while it runs, so each candidate is warmed up before it is
 * timed (the kernel times compiled code): many short calls first, since the JIT compiles a method
 * after enough calls and interpreted Vector API code is a hundred times slower than compiled. Time
 * is this thread's CPU time, not the clock's, and the timing pauses between slices so that the
 * JIT's own threads get the CPU: a few seconds on a quiet machine, longer on a busy one.
 */
public final class ParitySelection {

    /** The data blocks and size the benchmark uses, as the benchmark does. */
    static final int DATA = 4;
    static final int BLOCK = 64 * 1024;
    private static final long WARM_NANOS = 150_000_000L;
    private static final long TIMED_NANOS = 10_000_000L;
    /** Fewest rounds: long enough (with the pauses) for a queued compilation to land. */
    private static final int MIN_ROUNDS = 10;
    /** A moment off the CPU before each slice, so that a compilation queued on a busy machine can finish. */
    private static final long YIELD_NANOS = 40_000_000L;
    /** Most rounds while the speeds still rise. */
    private static final int MAX_ROUNDS = 100;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Warm-up calls work on this much, so the JIT sees many calls early (it compiles by call count). */
    private static final int WARM_LEN = 512;
    /** Slices are timed in this thread's CPU time, so a busy machine slows the choice down without skewing it. */
    private static final BestOfRounds.Timer CPU = new BestOfRounds.Timer() {
        @Override
        public long nanos() {
            return cpuNanos();
        }

        @Override
        public void pause(long nanos) {
            LockSupport.parkNanos(nanos);
        }
    };

    /** One candidate's figures: data bytes per second through XOR and through P+Q generation. */
    public record Measured(String name, double xorMBps, double raid6MBps) {}

    /**
     * The choice: the kernel for XOR and the one for the raid6 syndrome, with their measured
     * speeds and every candidate's.
     */
    public record Selection(String xorAlgorithm, double xorMBps, String raid6Algorithm, double raid6MBps,
                            boolean vectorAvailable, boolean measuring, List<Measured> candidates) {}

    private record Chosen(ParityKernel xor, ParityKernel raid6, Selection selection) {}

    private static final ScalarParity SCALAR = new ScalarParity();
    /** Until the benchmark has run: the scalar code, which needs no warm-up. */
    private static volatile Chosen chosen = new Chosen(SCALAR, SCALAR,
            new Selection(SCALAR.name(), 0, SCALAR.name(), 0, vectorAvailable(), true, List.of()));
    private static final CountDownLatch DONE = new CountDownLatch(1);
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private ParitySelection() {}

    /**
     * Starts the benchmark on a thread of its own, once per process (later calls do nothing).
     * Arrays run the scalar code until it has chosen and then switch, so nothing waits for it.
     */
    public static void start() {
        if (STARTED.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("parity-selection").start(() -> {
                try {
                    chosen = choose();
                } finally {
                    DONE.countDown();
                }
            });
        }
    }

    /** Starts the benchmark if need be and waits for its choice (benchmarks, tests). */
    public static Selection awaitSelection() {
        start();
        try {
            DONE.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return chosen.selection();
    }

    /** The choice so far: {@link Selection#measuring()} until the benchmark has run. */
    public static Selection selection() {
        return chosen.selection();
    }

    /** The kernel raid4/5 use now. */
    public static ParityKernel xorKernel() {
        return chosen.xor();
    }

    /** The kernel raid6 uses now. */
    public static ParityKernel raid6Kernel() {
        return chosen.raid6();
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
        List<String> names = new ArrayList<>();
        List<BestOfRounds.Work> work = new ArrayList<>();
        for (ParityKernel k : all) {
            names.add(k.name());
            work.add(warmed(k, false, WARM_NANOS));
            work.add(warmed(k, true, WARM_NANOS));
        }
        List<Measured> figures = timedTogether(names, work, CPU);
        Selection s = select(figures, vectorAvailable());
        System.getLogger(ParitySelection.class.getName()).log(System.Logger.Level.INFO,
                "parity: xor " + s.xorAlgorithm() + " (" + Math.round(s.xorMBps()) + " MB/s), raid6 "
                        + s.raid6Algorithm() + " (" + Math.round(s.raid6MBps()) + " MB/s)");
        return new Chosen(all.get(indexOf(figures, s.xorAlgorithm())), all.get(indexOf(figures, s.raid6Algorithm())), s);
    }

    /**
     * Every candidate's figures, all timed together: {@code work} holds each named candidate's
     * XOR and then its P+Q.
     */
    static List<Measured> timedTogether(List<String> names, List<BestOfRounds.Work> work, BestOfRounds.Timer timer) {
        double[] rates = BestOfRounds.megabytesPerSecond(work, timer, TIMED_NANOS, YIELD_NANOS, MIN_ROUNDS, MAX_ROUNDS);
        List<Measured> figures = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            figures.add(new Measured(names.get(i), rates[2 * i], rates[2 * i + 1]));
        }
        return figures;
    }

    /** The fastest candidate for XOR and the fastest for P+Q (the first of equals). */
    static Selection select(List<Measured> figures, boolean vectorAvailable) {
        Measured xor = figures.getFirst();
        Measured raid6 = figures.getFirst();
        for (Measured m : figures) {
            xor = m.xorMBps() > xor.xorMBps() ? m : xor;
            raid6 = m.raid6MBps() > raid6.raid6MBps() ? m : raid6;
        }
        return new Selection(xor.name(), xor.xorMBps(), raid6.name(), raid6.raid6MBps(), vectorAvailable, false,
                List.copyOf(figures));
    }

    private static int indexOf(List<Measured> figures, String name) {
        for (int i = 0; i < figures.size(); i++) {
            if (figures.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException(name);
    }

    /** This thread's CPU time in nanoseconds (the clock where the JVM cannot tell). */
    public static long cpuNanos() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /**
     * Data MB/s (10^6 bytes of the four data blocks) of XOR or P+Q generation with {@code k} per
     * second of this thread's CPU: after {@code warmNanos} of warm-up on short blocks, the best of
     * slices of {@code timedNanos}, taken until three in a row bring no gain (the benchmark's
     * table; the start-up choice times all candidates together, see {@link BestOfRounds}).
     */
    public static double measure(ParityKernel k, boolean raid6, long warmNanos, long timedNanos) {
        return BestOfRounds.megabytesPerSecond(List.of(warmed(k, raid6, warmNanos)), CPU, timedNanos, YIELD_NANOS,
                MIN_ROUNDS, MAX_ROUNDS)[0];
    }

    /**
     * {@code k}'s XOR or P+Q over the benchmark's blocks, warmed up for {@code warmNanos} of CPU
     * first: many short calls, since the JIT compiles a method after enough calls.
     */
    private static BestOfRounds.Work warmed(ParityKernel k, boolean raid6, long warmNanos) {
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
        run(k, raid6, data, offs, p, q, warmNanos, WARM_LEN);
        return nanos -> run(k, raid6, data, offs, p, q, nanos, BLOCK) * DATA * BLOCK;
    }

    private static long run(ParityKernel k, boolean raid6, MemorySegment[] data, long[] offs, MemorySegment p,
                            MemorySegment q, long nanos, int len) {
        long end = cpuNanos() + nanos;
        long rounds = 0;
        do {
            for (int i = 0; i < 8; i++) {
                if (raid6) {
                    k.genSyndrome(data, offs, DATA, p, 0, q, 0, len);
                } else {
                    k.xor(data, offs, DATA, p, 0, len);
                }
            }
            rounds += 8;
        } while (cpuNanos() < end);
        return rounds;
    }
}
