package io.blockwork.engine.reliability;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.workload.VerifyPattern;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fio-verify-style client for the reliability suites: {@code threads} threads, each owning a
 * disjoint run of blocks, doing random writes of {@link VerifyPattern} blocks (some with FUA),
 * reads that check what they get, and a flush every few writes. Unlike the engine's workload it
 * goes on past errors (fio's {@code continue_on_error=all}), counting them, and tells a listener
 * which block generations became durable, at the moment the client learns it.
 *
 * <p>What a read may return: a block's generations go up by one per write issued; every write
 * after the last one that succeeded has failed, and a failed write may or may not have landed.
 * So a read must return a generation between the last successful write's and the last issued,
 * exactly as that generation wrote it (or zeros before the first write). Anything else is wrong
 * data: lost, torn, misdirected or corrupt.
 *
 * <p>What is durable: a FUA write once it succeeded; the writes a thread saw succeed before it
 * sent a flush, once that flush succeeded. Each block belongs to one thread, so its state needs
 * no lock: only its owner touches it.
 */
final class VerifyingClient {

    static final int BLOCK = 4096;

    /**
     * @param threads client threads, each with {@code blocksPerThread} blocks of its own
     * @param opsPerThread reads and writes each thread issues (flushes not counted)
     * @param readPercent share of reads among them
     * @param fuaPercent share of writes sent with FUA
     * @param flushEvery a thread flushes after this many of its writes; 0 for never
     */
    record Config(int threads, int blocksPerThread, long opsPerThread, int readPercent, int fuaPercent,
                  int flushEvery, long seed) {

        long blocks() {
            return (long) threads * blocksPerThread;
        }

        Config withOps(long ops) {
            return new Config(threads, blocksPerThread, ops, readPercent, fuaPercent, flushEvery, seed);
        }

        Config withSeed(long s) {
            return new Config(threads, blocksPerThread, opsPerThread, readPercent, fuaPercent, flushEvery, s);
        }
    }

    /** Told, on the client thread right after the acknowledgement, which generations are now durable. */
    @FunctionalInterface
    interface DurabilityListener {
        void durable(int[] blocks, int[] generations);
    }

    /** What a run saw. {@code wrongData} counts reads (during the run or the final pass) that returned data no write put there. */
    record Report(long writes, long reads, long flushes, long writeErrors, long readErrors, long flushErrors,
                  long wrongData, List<String> wrongSamples) {

        long errors() {
            return writeErrors + readErrors + flushErrors;
        }

        Report plus(Report o) {
            List<String> samples = new ArrayList<>(wrongSamples);
            samples.addAll(o.wrongSamples);
            return new Report(writes + o.writes, reads + o.reads, flushes + o.flushes, writeErrors + o.writeErrors,
                    readErrors + o.readErrors, flushErrors + o.flushErrors, wrongData + o.wrongData,
                    List.copyOf(samples.subList(0, Math.min(8, samples.size()))));
        }

        @Override
        public String toString() {
            return writes + " writes, " + reads + " reads, " + flushes + " flushes; errors: " + writeErrors + " write, "
                    + readErrors + " read, " + flushErrors + " flush; wrong data: " + wrongData
                    + (wrongSamples.isEmpty() ? "" : " " + wrongSamples);
        }
    }

    private final BlockDevice device;
    private final Config config;
    private final DurabilityListener listener;
    /** Per block: generation of the last write that succeeded (0: none). */
    private final int[] okGen;
    /** Per block: generation of the last write issued. */
    private final int[] issuedGen;
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong flushes = new AtomicLong();
    private final AtomicLong writeErrors = new AtomicLong();
    private final AtomicLong readErrors = new AtomicLong();
    private final AtomicLong flushErrors = new AtomicLong();
    private final AtomicLong wrongData = new AtomicLong();
    private final List<String> wrongSamples = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong opsDone = new AtomicLong();
    private volatile long actionAt = -1;
    private volatile Runnable action;

    VerifyingClient(BlockDevice device, Config config, DurabilityListener listener) {
        if (config.blocks() * BLOCK > device.sizeBytes()) {
            throw new IllegalArgumentException(config.blocks() + " blocks do not fit " + device.name());
        }
        this.device = device;
        this.config = config;
        this.listener = listener;
        this.okGen = new int[(int) config.blocks()];
        this.issuedGen = new int[(int) config.blocks()];
    }

    VerifyingClient(BlockDevice device, Config config) {
        this(device, config, (b, g) -> {});
    }

    /** Writes generation 1 to every block, then flushes: a known baseline, durable. */
    void prefill() {
        int n = (int) config.blocks();
        MemorySegment buf = MemorySegment.ofArray(new byte[BLOCK]);
        int[] blocks = new int[n];
        int[] gens = new int[n];
        for (int b = 0; b < n; b++) {
            issuedGen[b] = okGen[b] + 1;
            VerifyPattern.fill(buf, config.seed(), offset(b), issuedGen[b]);
            SyncIo.write(device, offset(b), buf);
            okGen[b] = issuedGen[b];
            blocks[b] = b;
            gens[b] = okGen[b];
        }
        SyncIo.flush(device);
        listener.durable(blocks, gens);
    }

    /**
     * Runs {@code what} once, on the client thread that completes the {@code ops}-th operation of
     * the run, while the other threads keep going: a fault injected under load.
     */
    VerifyingClient at(long ops, Runnable what) {
        this.action = what;
        this.actionAt = ops;
        return this;
    }

    /** Runs every thread's operations and returns when all are done. */
    Report run() throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < config.threads(); t++) {
            int id = t;
            threads.add(Thread.ofPlatform().name("verifying-client-" + t).start(() -> worker(id)));
        }
        for (Thread t : threads) {
            t.join();
        }
        return report();
    }

    /** Reads every block once and checks it, as fio's verify phase does. */
    Report verifyAll() {
        MemorySegment buf = MemorySegment.ofArray(new byte[BLOCK]);
        MemorySegment scratch = MemorySegment.ofArray(new byte[BLOCK]);
        for (int b = 0; b < config.blocks(); b++) {
            read(b, buf, scratch);
        }
        return report();
    }

    Report report() {
        return new Report(writes.get(), reads.get(), flushes.get(), writeErrors.get(), readErrors.get(), flushErrors.get(),
                wrongData.get(), List.copyOf(wrongSamples));
    }

    /** The last generation issued to each block (for checks after the run). */
    int issued(int block) {
        return issuedGen[block];
    }

    int blocks() {
        return okGen.length;
    }

    long offset(int block) {
        return (long) block * BLOCK;
    }

    long seed() {
        return config.seed();
    }

    private void worker(int id) {
        SplittableRandom rng = new SplittableRandom(config.seed() * 7919 + id);
        int first = id * config.blocksPerThread();
        MemorySegment buf = MemorySegment.ofArray(new byte[BLOCK]);
        MemorySegment scratch = MemorySegment.ofArray(new byte[BLOCK]);
        List<Integer> dirty = new ArrayList<>();
        int writesSinceFlush = 0;
        for (long op = 0; op < config.opsPerThread(); op++) {
            if (opsDone.incrementAndGet() == actionAt) {
                action.run();
            }
            int b = first + rng.nextInt(config.blocksPerThread());
            if (rng.nextInt(100) < config.readPercent()) {
                read(b, buf, scratch);
                continue;
            }
            boolean fua = rng.nextInt(100) < config.fuaPercent();
            int gen = ++issuedGen[b];
            VerifyPattern.fill(buf, config.seed(), offset(b), gen);
            IoStatus s = SyncIo.execute(device, BioOp.WRITE, offset(b), BLOCK, fua ? BioFlags.FUA : BioFlags.NONE, buf);
            writes.incrementAndGet();
            if (!s.ok()) {
                writeErrors.incrementAndGet();
                continue;
            }
            okGen[b] = gen;
            if (fua) {
                listener.durable(new int[] {b}, new int[] {gen});
            } else {
                dirty.add(b);
            }
            if (config.flushEvery() > 0 && ++writesSinceFlush >= config.flushEvery()) {
                writesSinceFlush = 0;
                flush(dirty);
            }
        }
        if (config.flushEvery() > 0) {
            flush(dirty);
        }
    }

    /** Flushes; on success the dirty blocks' generations (as they were at submission) are durable. */
    private void flush(List<Integer> dirty) {
        int[] blocks = dirty.stream().mapToInt(Integer::intValue).toArray();
        int[] gens = new int[blocks.length];
        for (int i = 0; i < blocks.length; i++) {
            gens[i] = okGen[blocks[i]];
        }
        IoStatus s = SyncIo.execute(device, BioOp.FLUSH, 0, 0, BioFlags.NONE, null);
        flushes.incrementAndGet();
        if (!s.ok()) {
            flushErrors.incrementAndGet();
            return;
        }
        dirty.clear();
        listener.durable(blocks, gens);
    }

    private void read(int b, MemorySegment buf, MemorySegment scratch) {
        IoStatus s = SyncIo.execute(device, BioOp.READ, offset(b), BLOCK, BioFlags.NONE, buf);
        reads.incrementAndGet();
        if (!s.ok()) {
            readErrors.incrementAndGet();
            return;
        }
        long got = VerifyPattern.generationOf(buf, scratch, config.seed(), offset(b));
        if (got < okGen[b] || got > issuedGen[b]) {
            wrongData.incrementAndGet();
            if (wrongSamples.size() < 8) {
                wrongSamples.add("block " + b + ": read " + (got < 0 ? "data no write put there" : "generation " + got)
                        + ", expected " + (okGen[b] == issuedGen[b] ? String.valueOf(okGen[b]) : okGen[b] + ".." + issuedGen[b]));
            }
        }
    }
}
