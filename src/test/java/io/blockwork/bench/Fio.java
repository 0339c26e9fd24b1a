package io.blockwork.bench;

import io.blockwork.nbd.ExternalTool;
import io.blockwork.nbd.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** fio's nbd engine against an NBD URI, for the benchmarks that measure through the NBD server. */
final class Fio {

    private Fio() {}

    /**
     * One fio job group's IOPS, p99 completion latency, and what the client itself spent: its CPU
     * (user + system, percent of one core, averaged over the jobs; near 100 the client, not the
     * server, sets the pace) and its context switches per I/O (how often it slept waiting).
     */
    record Run(double iops, double p99Micros, double clientCpuPercent, double clientSwitchesPerIo) {}

    /** Runs one fio job group over {@code size} bytes; {@code seconds} 0 means one pass. */
    static Run run(String uri, long size, String rw, String bs, int depth, int jobs, long seconds, boolean random) {
        List<String> cmd = new ArrayList<>(List.of("fio", "--name=bench", "--ioengine=nbd",
                "--uri=" + uri, "--rw=" + rw, "--bs=" + bs, "--iodepth=" + depth, "--numjobs=" + jobs,
                "--size=" + size, "--group_reporting", "--output-format=json"));
        if (seconds > 0) {
            cmd.addAll(List.of("--time_based", "--runtime=" + seconds));
        }
        if (random) {
            cmd.add("--norandommap");
        }
        ExternalTool.Result r = ExternalTool.run(Duration.ofSeconds(seconds + 120), cmd.toArray(String[]::new))
                .requireSuccess();
        Object job = Json.at(Json.parseObject(r.stdout()), "jobs", 0);
        String dir = rw.contains("read") ? "read" : "write";
        return new Run(Json.number(job, dir, "iops"), Json.number(job, dir, "clat_ns", "percentile", "99.000000") / 1000.0,
                Json.number(job, "usr_cpu") + Json.number(job, "sys_cpu"),
                Json.number(job, "ctx") / Json.number(job, dir, "total_ios"));
    }

    /** A free loopback port (a benchmark's servers must never take a fixed one). */
}
