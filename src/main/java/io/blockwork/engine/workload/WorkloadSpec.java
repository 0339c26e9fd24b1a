package io.blockwork.engine.workload;

import java.util.Objects;

/**
 * A fio-like job description. Sizes in bytes, times in nanoseconds.
 *
 * @param rw the pattern
 * @param rwMixRead percentage of reads for {@code randrw}
 * @param blockSize bytes per I/O ({@code bs})
 * @param ioDepth I/Os each job keeps in flight
 * @param numJobs jobs, each on its own thread and its own region
 * @param offset where job 0's region starts
 * @param size bytes of each job's region; 0 means the device's size (after {@code offset}) split evenly
 * @param offsetIncrement distance between the starts of consecutive jobs' regions; 0 means {@code size}
 * @param runtimeNanos how long each job runs; 0 means until {@code ioLimit}, or one pass over its region
 * @param ioLimit I/Os per job; 0 for no limit
 * @param fsync flush after every this many writes; 0 for never (fio's {@code fsync}/{@code fdatasync})
 * @param fuaEvery write every this many-th write with FUA; 1 for all (fio's {@code sync=1} on a raw
 *                 device), 0 for none
 * @param rateBytes each job's bandwidth cap in bytes per second (fio's {@code rate}); 0 for none
 * @param rateIops each job's cap in I/Os per second (fio's {@code rate_iops}); 0 for none
 * @param verify write a seeded pattern with a checksum, check every read, and read back every written block at the end
 * @param seed seeds offsets and data
 * @param sampleIntervalNanos period of the live samples
 */
public record WorkloadSpec(RwMode rw, int rwMixRead, int blockSize, int ioDepth, int numJobs,
                           long offset, long size, long offsetIncrement,
                           long runtimeNanos, long ioLimit, int fsync, int fuaEvery, long rateBytes, long rateIops,
                           boolean verify, long seed, long sampleIntervalNanos) {

    public static final long SECOND = 1_000_000_000L;

    public WorkloadSpec {
        Objects.requireNonNull(rw, "rw");
        require(rwMixRead >= 0 && rwMixRead <= 100, "rwmixread must be 0..100");
        require(blockSize >= 512 && blockSize % 512 == 0 && blockSize <= (16 << 20), "bs must be a multiple of 512 up to 16 MiB");
        require(ioDepth >= 1 && ioDepth <= 1024, "iodepth must be 1..1024");
        require(numJobs >= 1 && numJobs <= 256, "numjobs must be 1..256");
        require(offset >= 0 && size >= 0 && offsetIncrement >= 0, "offset, size and offset_increment must not be negative");
        require(runtimeNanos >= 0 && ioLimit >= 0 && fsync >= 0, "runtime, io limit and fsync must not be negative");
        require(fuaEvery >= 0 && rateBytes >= 0 && rateIops >= 0, "fua, rate and rate_iops must not be negative");
        require(sampleIntervalNanos > 0, "sample interval must be positive");
    }

    /** True if every write carries FUA. */
    public boolean sync() {
        return fuaEvery == 1;
    }

    /** True if the jobs are paced ({@code rate} or {@code rate_iops}). */
    public boolean rateLimited() {
        return rateBytes > 0 || rateIops > 0;
    }

    /**
     * The least time between two I/Os of one job that the rate limits allow, in nanoseconds
     * (the tighter of the two limits); 0 when unlimited.
     */
    public double nanosPerIo() {
        double byBytes = rateBytes > 0 ? (double) blockSize * SECOND / rateBytes : 0;
        double byIops = rateIops > 0 ? (double) SECOND / rateIops : 0;
        return Math.max(byBytes, byIops);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** A builder starting from one job at depth 1, one pass over the device, one-second samples. */
    public static Builder builder(RwMode rw, int blockSize) {
        return new Builder(rw, blockSize);
    }

    /** Fluent construction; the record's constructor checks the result. */
    public static final class Builder {
        private final RwMode rw;
        private final int blockSize;
        private int rwMixRead = 50;
        private int ioDepth = 1;
        private int numJobs = 1;
        private long offset;
        private long size;
        private long offsetIncrement;
        private long runtimeNanos;
        private long ioLimit;
        private int fsync;
        private int fuaEvery;
        private long rateBytes;
        private long rateIops;
        private boolean verify;
        private long seed = 1;
        private long sampleIntervalNanos = SECOND;

        private Builder(RwMode rw, int blockSize) {
            this.rw = rw;
            this.blockSize = blockSize;
        }

        public Builder rwMixRead(int pct) { rwMixRead = pct; return this; }
        public Builder ioDepth(int depth) { ioDepth = depth; return this; }
        public Builder jobs(int jobs) { numJobs = jobs; return this; }
        public Builder offset(long bytes) { offset = bytes; return this; }
        public Builder size(long bytes) { size = bytes; return this; }
        public Builder offsetIncrement(long bytes) { offsetIncrement = bytes; return this; }
        public Builder runtime(long nanos) { runtimeNanos = nanos; return this; }
        public Builder ioLimit(long ios) { ioLimit = ios; return this; }
        public Builder fsync(int everyWrites) { fsync = everyWrites; return this; }
        public Builder sync(boolean fua) { fuaEvery = fua ? 1 : 0; return this; }
        public Builder fuaEvery(int everyWrites) { fuaEvery = everyWrites; return this; }
        public Builder rate(long bytesPerSecond) { rateBytes = bytesPerSecond; return this; }
        public Builder rateIops(long iosPerSecond) { rateIops = iosPerSecond; return this; }
        public Builder verify(boolean on) { verify = on; return this; }
        public Builder seed(long s) { seed = s; return this; }
        public Builder sampleInterval(long nanos) { sampleIntervalNanos = nanos; return this; }

        public WorkloadSpec build() {
            return new WorkloadSpec(rw, rwMixRead, blockSize, ioDepth, numJobs, offset, size, offsetIncrement,
                    runtimeNanos, ioLimit, fsync, fuaEvery, rateBytes, rateIops, verify, seed, sampleIntervalNanos);
        }
    }
}
