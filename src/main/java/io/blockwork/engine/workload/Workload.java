package io.blockwork.engine.workload;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.workload.WorkloadResult.OpResult;
import io.blockwork.engine.workload.WorkloadResult.VerifyResult;
import io.blockwork.engine.workload.WorkloadResult.WorkloadSample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * A fio-like load generator: {@code numjobs} jobs, each on its own thread and region, each keeping
 * {@code iodepth} I/Os in flight; latencies go to HdrHistograms, and the calling thread takes one
 * sample per interval while the jobs run.
 *
 * <pre>{@code
 * WorkloadResult r = Workload.run(disk, WorkloadSpec.builder(RwMode.RANDREAD, 4096)
 *         .jobs(2).ioDepth(32).runtime(5 * WorkloadSpec.SECOND).build());
 * }</pre>
 */
public final class Workload {

    /** Verification keeps a generation number per block; this caps its memory at 256 MiB. */
    static final long MAX_VERIFY_BLOCKS = 64L << 20;

    private final WorkloadSpec spec;
    private final ThreadFactory threads;
    private final List<Job> jobs = new ArrayList<>();
    /** Blocks in each job's region. */
    private final long regionBlocks;

    public Workload(BlockDevice device, WorkloadSpec spec, ThreadFactory threads) {
        this.spec = spec;
        this.threads = threads;
        int lbs = device.limits().logicalBlockSize();
        if (spec.blockSize() % lbs != 0) {
            throw new IllegalArgumentException("bs " + spec.blockSize() + " is not a multiple of the logical block size " + lbs);
        }
        if (spec.offset() % lbs != 0 || spec.offsetIncrement() % lbs != 0) {
            throw new IllegalArgumentException("offset and offset_increment must be multiples of " + lbs);
        }
        if (spec.offset() >= device.sizeBytes()) {
            throw new IllegalArgumentException("offset " + spec.offset() + " is past the end of " + device.name());
        }
        long size = spec.size() > 0 ? spec.size()
                : (device.sizeBytes() - spec.offset()) / (spec.offsetIncrement() > 0 ? 1 : spec.numJobs());
        long increment = spec.offsetIncrement() > 0 ? spec.offsetIncrement()
                : spec.size() > 0 ? 0 : size;
        long blocks = size / spec.blockSize();
        if (blocks == 0) {
            throw new IllegalArgumentException("each job's region is smaller than one block");
        }
        long lastEnd = spec.offset() + (spec.numJobs() - 1) * increment + blocks * spec.blockSize();
        if (lastEnd > device.sizeBytes()) {
            throw new IllegalArgumentException("job regions end at " + lastEnd + ", past the device's " + device.sizeBytes() + " bytes");
        }
        if (spec.verify() && spec.numJobs() > 1 && increment < blocks * spec.blockSize()) {
            throw new IllegalArgumentException("verify needs disjoint job regions (offset_increment >= size)");
        }
        if (spec.verify() && blocks > MAX_VERIFY_BLOCKS) {
            throw new IllegalArgumentException("verify supports at most " + MAX_VERIFY_BLOCKS + " blocks per job");
        }
        for (int i = 0; i < spec.numJobs(); i++) {
            jobs.add(new Job(i, device, spec, spec.offset() + i * increment, blocks));
        }
        this.regionBlocks = blocks;
    }

    /**
     * I/Os the measured phase will issue over all jobs when it ends by count (an io limit, or
     * one pass over each region); 0 when it ends by time.
     */
    public long plannedIos() {
        if (spec.ioLimit() > 0) {
            return spec.ioLimit() * spec.numJobs();
        }
        return spec.runtimeNanos() > 0 ? 0 : regionBlocks * spec.numJobs();
    }

    /** Runs on platform threads and returns when every job has finished. */
    public static WorkloadResult run(BlockDevice device, WorkloadSpec spec) {
        return new Workload(device, spec, Thread.ofPlatform().name("workload-job-", 0).factory()).execute(s -> {});
    }

    /** Ends the measured phase of every job; {@link #execute} then returns as usual (verify pass included). */
    public void stop() {
        jobs.forEach(Job::requestStop);
    }

    /**
     * Ends every job as soon as its I/Os in flight complete, skipping the verify pass; {@link
     * #execute} then returns a result marked cancelled. Safe from any thread, any number of times.
     */
    public void cancel() {
        jobs.forEach(Job::cancel);
    }

    public WorkloadResult execute(Consumer<WorkloadSample> onSample) {
        List<Thread> running = new ArrayList<>();
        for (Job job : jobs) {
            Thread t = threads.newThread(job);
            running.add(t);
        }
        long start = System.nanoTime();
        running.forEach(Thread::start);

        Totals totals = new Totals(spec.blockSize());
        List<WorkloadSample> samples = new ArrayList<>();
        long interval = spec.sampleIntervalNanos();
        long nextTick = start + interval;
        long lastTick = start;
        for (Thread t : running) {
            while (!join(t, nextTick - System.nanoTime())) {
                long now = System.nanoTime();
                samples.add(totals.sample(jobs, now - start, now - lastTick));
                onSample.accept(samples.getLast());
                lastTick = now;
                nextTick += interval;
            }
        }
        long now = System.nanoTime();
        if (now - lastTick > interval / 10) {
            samples.add(totals.sample(jobs, now - start, now - lastTick));
            onSample.accept(samples.getLast());
        } else {
            totals.sample(jobs, now - start, now - lastTick);
        }

        long elapsed = jobs.stream().mapToLong(j -> j.mainPhaseNanos).max().orElse(0);
        long errors = jobs.stream().mapToLong(j -> j.errors).sum();
        String firstError = jobs.stream().map(j -> j.firstError).filter(e -> e != null).findFirst().orElse(null);
        VerifyResult verify = VerifyResult.NONE;
        if (spec.verify()) {
            verify = new VerifyResult(jobs.stream().mapToLong(j -> j.verifiedBlocks).sum(),
                    jobs.stream().mapToLong(j -> j.mismatches).sum(),
                    jobs.stream().flatMap(j -> j.mismatchSamples.stream()).limit(8).toList());
        }
        long bs = spec.blockSize();
        boolean cancelled = jobs.stream().anyMatch(Job::cancelled);
        if (cancelled && spec.verify()) {
            verify = VerifyResult.NONE; // the read-back did not run: nothing was checked at the end
        }
        return new WorkloadResult(spec, elapsed,
                OpResult.of(totals.reads, bs, elapsed), OpResult.of(totals.writes, bs, elapsed),
                OpResult.of(totals.flushes, 0, elapsed), errors, firstError, verify, List.copyOf(samples), cancelled);
    }

    private static boolean join(Thread t, long nanos) {
        try {
            if (nanos <= 0) {
                return !t.isAlive();
            }
            return t.join(Duration.ofNanos(nanos));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for workload jobs", e);
        }
    }

    /** Cumulative latency histograms, fed from the jobs' recorders one interval at a time. */
    private static final class Totals {
        private final long blockSize;
        final Histogram reads = new Histogram(3);
        final Histogram writes = new Histogram(3);
        final Histogram flushes = new Histogram(3);

        Totals(long blockSize) {
            this.blockSize = blockSize;
        }

        WorkloadSample sample(List<Job> jobs, long elapsedNanos, long intervalNanos) {
            Histogram intervalReads = new Histogram(3);
            Histogram intervalWrites = new Histogram(3);
            for (Job j : jobs) {
                intervalReads.add(j.reads.getIntervalHistogram());
                intervalWrites.add(j.writes.getIntervalHistogram());
                flushes.add(j.flushes.getIntervalHistogram());
            }
            reads.add(intervalReads);
            writes.add(intervalWrites);
            double seconds = Math.max(intervalNanos, 1) / 1e9;
            double readIops = intervalReads.getTotalCount() / seconds;
            double writeIops = intervalWrites.getTotalCount() / seconds;
            long errors = 0;
            for (Job j : jobs) {
                errors += j.errors;
            }
            return new WorkloadSample(elapsedNanos / 1_000_000, readIops, writeIops,
                    readIops * blockSize, writeIops * blockSize,
                    intervalReads.getTotalCount() == 0 ? 0 : intervalReads.getValueAtPercentile(99),
                    intervalWrites.getTotalCount() == 0 ? 0 : intervalWrites.getValueAtPercentile(99),
                    reads.getTotalCount(), writes.getTotalCount(), errors);
        }
    }
}
