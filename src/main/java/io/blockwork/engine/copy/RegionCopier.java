package io.blockwork.engine.copy;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeadlineScheduler;
import io.blockwork.engine.block.IoStatus;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A kcopyd-style region copier: copies (or zeroes) ranges from one device to one or more others,
 * asynchronously, in chunks, on one worker thread per copier.
 *
 * <p>Design notes. Callers hand in jobs from any thread; bio completions (any thread) hand chunks
 * back. The worker works in rounds, like kcopyd's {@code do_work}: finish jobs whose chunks are
 * all written (running their callbacks), issue the writes of chunks whose read has completed,
 * then start reads of new chunks while fewer than {@code maxChunksInFlight} are in flight and the
 * throttle allows. Each round is one batch of the copier's {@link BatchDispatch}: with
 * {@code explicit} the batch's bios reach the devices when the round ends; with {@code timer}
 * they wait in the devices' queue plugs for the 3 ms timer, as kcopyd's did before it learnt to
 * unplug (seed 003).
 *
 * <p>Only the worker touches jobs' bookkeeping; the queues between threads are lock-free.
 * Callbacks run on the worker and must not block; they may submit more jobs.
 */
public final class RegionCopier implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RegionCopier.class.getName());

    /**
     * @param chunkBytes bytes per read/write pair
     * @param maxChunksInFlight chunks being read or written at once
     * @param dispatch how the worker releases its batches
     * @param bytesPerSecond throttle; 0 for none
     */
    public record Config(long chunkBytes, int maxChunksInFlight, BatchDispatch.Kind dispatch, long bytesPerSecond) {
        public static final Config DEFAULT = new Config(128 * 1024, 8, BatchDispatch.Kind.EXPLICIT, 0);

        public Config {
            if (chunkBytes < 512 || chunkBytes % 512 != 0 || chunkBytes > (16 << 20)) {
                throw new IllegalArgumentException("copy chunk must be a multiple of 512 up to 16 MiB: " + chunkBytes);
            }
            if (maxChunksInFlight < 1) {
                throw new IllegalArgumentException("at least one chunk must be allowed in flight");
            }
            Objects.requireNonNull(dispatch, "dispatch");
        }

        public Config withDispatch(BatchDispatch.Kind kind) {
            return new Config(chunkBytes, maxChunksInFlight, kind, bytesPerSecond);
        }

        public Config withChunkBytes(long bytes) {
            return new Config(bytes, maxChunksInFlight, dispatch, bytesPerSecond);
        }
    }

    /** A submitted copy: progress readable from any thread. */
    public static final class Job {
        private final BlockDevice source;
        private final long sourceOffset;
        private final List<CopyTarget> targets;
        private final long length;
        private final Consumer<CopyResult> onDone;
        private final IoStatus[] writes;
        private IoStatus read = IoStatus.OK;
        private long nextChunk;
        private int chunksOut;
        private final AtomicLong bytesDone = new AtomicLong();
        private volatile boolean finished;

        private Job(BlockDevice source, long sourceOffset, List<CopyTarget> targets, long length,
                    Consumer<CopyResult> onDone) {
            this.source = source;
            this.sourceOffset = sourceOffset;
            this.targets = List.copyOf(targets);
            this.length = length;
            this.onDone = onDone;
            this.writes = new IoStatus[targets.size()];
            Arrays.fill(writes, IoStatus.OK);
        }

        public long length() {
            return length;
        }

        public long bytesDone() {
            return bytesDone.get();
        }

        public boolean finished() {
            return finished;
        }

        boolean zeroing() {
            return source == null;
        }

        boolean allIssued() {
            return nextChunk >= length;
        }
    }

    /** One chunk of a job, travelling between the worker and bio completions. */
    private static final class Chunk {
        final Job job;
        final long at;
        final int bytes;
        final MemorySegment buffer;
        final AtomicInteger writesLeft = new AtomicInteger();
        volatile IoStatus readStatus = IoStatus.OK;
        final IoStatus[] writeStatus;

        Chunk(Job job, long at, int bytes, MemorySegment buffer) {
            this.job = job;
            this.at = at;
            this.bytes = bytes;
            this.buffer = buffer;
            this.writeStatus = new IoStatus[job.targets.size()];
            Arrays.fill(writeStatus, IoStatus.OK);
        }
    }

    private final String name;
    private final Config config;
    private final BatchDispatch dispatch;
    private final Throttle throttle;
    private final Thread worker;
    private final ConcurrentLinkedQueue<Job> submitted = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Chunk> read = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Chunk> written = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    /** Worker-only state. */
    private final ArrayDeque<Job> active = new ArrayDeque<>();
    private int chunksInFlight;
    /**
     * Full-size chunk buffers whose writes have all completed, for the next reads: a heap segment
     * made per chunk cost a memory session each, about an eighth of a snapshot copier's time
     * (issue 20's profile). A completed write leaves the buffer to its submitter, as a bio's pages.
     */
    private final ArrayDeque<MemorySegment> spareBuffers = new ArrayDeque<>();

    private final AtomicLong bytesCopied = new AtomicLong();
    private final AtomicLong jobsDone = new AtomicLong();

    public RegionCopier(String name, Config config, DeadlineScheduler timer) {
        this.name = name;
        this.config = config;
        this.dispatch = BatchDispatch.create(config.dispatch(), timer);
        this.throttle = new Throttle(config.bytesPerSecond(), System.nanoTime());
        this.worker = Thread.ofPlatform().name("copier-" + name).daemon(true).unstarted(this::work);
        this.worker.start();
    }

    /** Copies {@code length} bytes from {@code source} at {@code sourceOffset} to every target. */
    public Job copy(BlockDevice source, long sourceOffset, List<CopyTarget> targets, long length,
                    Consumer<CopyResult> onDone) {
        Objects.requireNonNull(source, "source");
        return enqueue(new Job(source, sourceOffset, targets, length, onDone));
    }

    /** Writes zeroes over {@code length} bytes of every target (kcopyd's zero). */
    public Job zero(List<CopyTarget> targets, long length, Consumer<CopyResult> onDone) {
        return enqueue(new Job(null, 0, targets, length, onDone));
    }

    private Job enqueue(Job job) {
        if (job.targets.isEmpty() || job.length <= 0) {
            throw new IllegalArgumentException("a copy needs at least one target and a positive length");
        }
        if (closed) {
            throw new IllegalStateException("copier " + name + " is closed");
        }
        submitted.add(job);
        LockSupport.unpark(worker);
        return job;
    }

    /** Changes the throttle; 0 lifts it. */
    public void bytesPerSecond(long rate) {
        throttle.rate(rate);
        LockSupport.unpark(worker);
    }

    public long bytesPerSecond() {
        return throttle.rate();
    }

    public long bytesCopied() {
        return bytesCopied.get();
    }

    public long jobsDone() {
        return jobsDone.get();
    }

    /** Times a 3 ms unplug timer had to release this copier's bios (strategy {@code timer}). */
    public long timerUnplugs() {
        return dispatch.timerUnplugs();
    }

    public Config config() {
        return config;
    }

    /* ---- The worker ---- */

    private void work() {
        while (!closed) {
            long throttleWait;
            dispatch.beginBatch();
            try {
                finishWritten();
                issueWrites();
                throttleWait = issueReads();
            } finally {
                dispatch.endBatch();
            }
            if (written.isEmpty() && read.isEmpty() && (submitted.isEmpty() || chunksInFlight >= config.maxChunksInFlight())) {
                if (throttleWait > 0) {
                    LockSupport.parkNanos(this, throttleWait);
                } else if (!hasStartableWork()) {
                    LockSupport.park(this);
                }
            }
        }
    }

    private boolean hasStartableWork() {
        return chunksInFlight < config.maxChunksInFlight()
                && (!submitted.isEmpty() || active.stream().anyMatch(j -> !j.allIssued()));
    }

    private void finishWritten() {
        Chunk c;
        while ((c = written.poll()) != null) {
            chunksInFlight--;
            Job job = c.job;
            job.chunksOut--;
            if (!c.readStatus.ok() && job.read.ok()) {
                job.read = c.readStatus;
            }
            for (int i = 0; i < c.writeStatus.length; i++) {
                if (!c.writeStatus[i].ok() && job.writes[i].ok()) {
                    job.writes[i] = c.writeStatus[i];
                }
            }
            if (c.buffer != null && c.bytes == config.chunkBytes() && spareBuffers.size() < config.maxChunksInFlight()) {
                spareBuffers.push(c.buffer);
            }
            job.bytesDone.addAndGet(c.bytes);
            bytesCopied.addAndGet(c.bytes);
            if (job.allIssued() && job.chunksOut == 0) {
                active.remove(job);
                job.finished = true;
                jobsDone.incrementAndGet();
                try {
                    job.onDone.accept(new CopyResult(job.read, List.of(job.writes)));
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, "copy callback failed on copier " + name, e);
                }
            }
        }
    }

    private void issueWrites() {
        Chunk c;
        while ((c = read.poll()) != null) {
            if (!c.readStatus.ok()) {
                written.add(c); // nothing to write; finished next round
                continue;
            }
            writeTargets(c);
        }
    }

    private void writeTargets(Chunk c) {
        List<CopyTarget> targets = c.job.targets;
        c.writesLeft.set(targets.size());
        for (int i = 0; i < targets.size(); i++) {
            CopyTarget t = targets.get(i);
            int index = i;
            Chunk chunk = c;
            BioOp op = c.job.zeroing() ? BioOp.WRITE_ZEROES : BioOp.WRITE;
            Bio bio = Bio.of(op, t.offset() + c.at, c.bytes, BioFlags.NONE, c.buffer, b -> {
                chunk.writeStatus[index] = b.status();
                if (chunk.writesLeft.decrementAndGet() == 0) {
                    written.add(chunk);
                    LockSupport.unpark(worker);
                }
            });
            dispatch.submit(t.device(), bio);
        }
    }

    /** Starts new chunks; returns how long the throttle wants the worker to wait, or 0. */
    private long issueReads() {
        Job job;
        while ((job = submitted.poll()) != null) {
            active.add(job);
        }
        for (Job j : active) {
            while (!j.allIssued() && chunksInFlight < config.maxChunksInFlight()) {
                int bytes = (int) Math.min(config.chunkBytes(), j.length - j.nextChunk);
                long wait = throttle.acquire(bytes, System.nanoTime());
                if (wait > 0) {
                    return wait;
                }
                Chunk c = new Chunk(j, j.nextChunk, bytes, j.zeroing() ? null : buffer(bytes));
                j.nextChunk += bytes;
                j.chunksOut++;
                chunksInFlight++;
                if (j.zeroing()) {
                    writeTargets(c);
                } else {
                    dispatch.submit(j.source, Bio.read(j.sourceOffset + c.at, c.buffer, b -> {
                        c.readStatus = b.status();
                        read.add(c);
                        LockSupport.unpark(worker);
                    }));
                }
            }
            if (chunksInFlight >= config.maxChunksInFlight()) {
                break;
            }
        }
        return 0;
    }

    /** Worker: a buffer for a chunk of {@code bytes}, reused if it is a full one. */
    private MemorySegment buffer(int bytes) {
        MemorySegment spare = bytes == config.chunkBytes() ? spareBuffers.poll() : null;
        return spare != null ? spare : MemorySegment.ofArray(new byte[bytes]);
    }

    /** Stops the worker; jobs not finished never call back. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(worker);
    }

    @Override
    public String toString() {
        return "RegionCopier[" + name + ", " + config + "]";
    }
}
