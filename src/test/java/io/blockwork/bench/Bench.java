package io.blockwork.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Entry point of the benchmark programs: {@code mvn -B -ntp test-compile exec:exec -Dbench=NAME}.
 * Each prints tables and one {@code BENCH_JSON} line per table. They are not tests: nothing here
 * asserts a time.
 */
public final class Bench {

    private static final Map<String, Runnable> BENCHMARKS = new LinkedHashMap<>();

    static {
        BENCHMARKS.put("core", CoreBenchmark::run);
        BENCHMARKS.put("dm", DmBenchmark::run);
        BENCHMARKS.put("nbd", NbdBenchmark::run);
        BENCHMARKS.put("sparsecopy", SparseCopyBenchmark::run);
        BENCHMARKS.put("md", MdBenchmark::run);
        BENCHMARKS.put("mirror", MirrorBenchmark::run);
        BENCHMARKS.put("snapshot", SnapshotBenchmark::run);
        BENCHMARKS.put("mdbitmap", MdBitmapBenchmark::run);
        BENCHMARKS.put("raid5", Raid5Benchmark::run);
        BENCHMARKS.put("raid5-arrays", Raid5Benchmark::arrays);
        BENCHMARKS.put("telemetry", TelemetryBenchmark::run);
        BENCHMARKS.put("remote", RemoteBenchmark::run);
        BENCHMARKS.put("thin", ThinBenchmark::run);
        BENCHMARKS.put("auth", AuthBenchmark::run);
    }

    private Bench() {}

    public static void main(String[] args) {
        String which = args.length > 0 ? args[0] : "all";
        System.out.printf("Blockwork benchmarks on %d cores, %s %s%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"), Runtime.version());
        if (which.equals("all")) {
            // raid5-arrays is a part of raid5, for a quicker look at its tables (b)-(d).
            BENCHMARKS.forEach((name, b) -> {
                if (!name.equals("raid5-arrays")) {
                    b.run();
                }
            });
        } else if (BENCHMARKS.containsKey(which)) {
            BENCHMARKS.get(which).run();
        } else {
            System.err.println("unknown benchmark '" + which + "'; choose one of " + BENCHMARKS.keySet() + " or all");
            System.exit(2);
        }
        System.exit(0);
    }

    /** Seconds each measured cell runs; BENCH_SECONDS overrides for a quicker look. */
    static long seconds(long dflt) {
        String s = System.getenv("BENCH_SECONDS");
        return s == null ? dflt : Long.parseLong(s);
    }

    /** Rounds per cell for benchmarks that take a median; BENCH_ROUNDS overrides. */
    static long rounds(long dflt) {
        String s = System.getenv("BENCH_ROUNDS");
        return s == null ? dflt : Long.parseLong(s);
    }
}
