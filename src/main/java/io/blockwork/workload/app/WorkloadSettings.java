package io.blockwork.workload.app;

import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.WorkloadSpec;
import io.blockwork.shared.problem.ProblemException;

/**
 * A workload request with every default filled in and every field checked, as it is stored and
 * shown back. Sizes in bytes, times in nanoseconds; 0 means "none" for runtime, io, fsync, fua,
 * rate and rateIops.
 */
public record WorkloadSettings(String rw, int rwmixread, int bs, int iodepth, int numjobs, long offset, long size,
                               long offsetIncrement, long runtime, long io, int fsync, int fua, String verify,
                               long rate, long rateIops, long seed, boolean destructive) {

    /** Buffers of all jobs together (bs x iodepth x numjobs, twice with verify) may not exceed this. */
    static final long MAX_BUFFER_BYTES = 256L << 20;
    /** Blocks verify may track over all jobs (4 bytes each). */
    static final long MAX_VERIFY_BLOCKS = 16L << 20;

    static WorkloadSettings of(WorkloadRequest r) {
        String rw = r.rw() == null ? null : r.rw().strip();
        if (rw == null || rw.isEmpty()) {
            throw ProblemException.invalid("rw", "rw is required: read, write, randread, randwrite or randrw");
        }
        try {
            RwMode.fromLabel(rw);
        } catch (IllegalArgumentException e) {
            throw ProblemException.invalid("rw", e.getMessage());
        }
        long bs = orDefault(r.bs(), 4096);
        require(bs >= 512 && bs % 512 == 0 && bs <= (16 << 20), "bs", "bs must be a multiple of 512 up to 16 MiB, not " + bs);
        int mix = orDefault(r.rwmixread(), 50);
        require(mix >= 0 && mix <= 100, "rwmixread", "rwmixread must be 0..100, not " + mix);
        int depth = orDefault(r.iodepth(), 1);
        require(depth >= 1 && depth <= 1024, "iodepth", "iodepth must be 1..1024, not " + depth);
        int jobs = orDefault(r.numjobs(), 1);
        require(jobs >= 1 && jobs <= 64, "numjobs", "numjobs must be 1..64, not " + jobs);
        String verify = r.verify() == null ? "none" : r.verify().strip();
        require(verify.equals("none") || verify.equals("crc32c"), "verify", "verify must be crc32c or none, not '" + verify + "'");
        boolean verifying = verify.equals("crc32c");
        long buffers = bs * depth * jobs * (verifying ? 2 : 1);
        require(buffers <= MAX_BUFFER_BYTES, "iodepth", "bs x iodepth x numjobs" + (verifying ? " x 2 (verify)" : "")
                + " is " + buffers + " bytes of buffers; at most " + MAX_BUFFER_BYTES + " (256 MiB)");
        long offset = orDefault(r.offset(), 0);
        long size = orDefault(r.size(), 0);
        long increment = orDefault(r.offsetIncrement(), 0);
        long runtime = orDefault(r.runtime(), 0);
        long io = orDefault(r.io(), 0);
        int fsync = orDefault(r.fsync(), 0);
        int fua = orDefault(r.fua(), 0);
        long rate = orDefault(r.rate(), 0);
        long rateIops = orDefault(r.rateIops(), 0);
        for (var f : new Object[][] {{"offset", offset}, {"size", size}, {"offsetIncrement", increment},
                {"runtime", runtime}, {"io", io}, {"fsync", (long) fsync}, {"fua", (long) fua}, {"rate", rate},
                {"rateIops", rateIops}}) {
            require((long) f[1] >= 0, (String) f[0], f[0] + " must not be negative");
        }
        require(io == 0 || io >= bs, "io", "io must be at least one block (bs " + bs + ")");
        require(rate == 0 || rate >= bs, "rate", "rate must allow at least one block a second (bs " + bs + ")");
        return new WorkloadSettings(rw, mix, (int) bs, depth, jobs, offset, size, increment, runtime, io, fsync, fua,
                verify, rate, rateIops, orDefault(r.seed(), 1), Boolean.TRUE.equals(r.destructive()));
    }

    public boolean writes() {
        return RwMode.fromLabel(rw).writes();
    }

    /** The engine's spec; progress samples once a second. */
    WorkloadSpec spec() {
        return WorkloadSpec.builder(RwMode.fromLabel(rw), bs).rwMixRead(rwmixread).ioDepth(iodepth).jobs(numjobs)
                .offset(offset).size(size).offsetIncrement(offsetIncrement).runtime(runtime)
                .ioLimit(io / bs).fsync(fsync).fuaEvery(fua).verify(verify.equals("crc32c"))
                .rate(rate).rateIops(rateIops).seed(seed).build();
    }

    private static void require(boolean ok, String field, String message) {
        if (!ok) {
            throw ProblemException.invalid(field, message);
        }
    }

    private static long orDefault(Long v, long d) {
        return v == null ? d : v;
    }

    private static int orDefault(Integer v, int d) {
        return v == null ? d : v;
    }
}
