package io.blockwork.engine.workload;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * One fio job: a thread that keeps {@code iodepth} I/Os in flight on its region of the device.
 *
 * <p>Completions may arrive on any thread. Those that arrive on the job's own thread (inline
 * completion, the common case on memory disks) are queued locally with no synchronisation;
 * others go through a concurrent queue and unpark the job only if it announced it is parking.
 * All bookkeeping (latencies, verification, the busy map) happens on the job thread, so it needs
 * no locks and the latency recorders have a single writer.
 */
final class Job implements Runnable {

    private static final int MAX_REPORTED_MISMATCHES = 8;
    /** A paced job looks at its clock (and a cancel) at least this often. */
    private static final long MAX_PACING_PARK_NANOS = 50_000_000L;

    final SingleWriterRecorder reads = new SingleWriterRecorder(3);
    final SingleWriterRecorder writes = new SingleWriterRecorder(3);
    final SingleWriterRecorder flushes = new SingleWriterRecorder(3);

    private final BlockDevice device;
    private final WorkloadSpec spec;
    private final long regionStart;
    private final long regionBlocks;
    private final SplittableRandom rng;
    private final BitSet busy;
    private final int[] generation;

    private final ArrayDeque<Slot> free = new ArrayDeque<>();
    private final ArrayDeque<Slot> doneHere = new ArrayDeque<>();
    private final ConcurrentLinkedQueue<Slot> doneElsewhere = new ConcurrentLinkedQueue<>();
    private volatile Thread thread;
    private volatile boolean parking;
    private volatile boolean stopRequested;
    /** Also skips (or ends) the final verify pass. */
    private volatile boolean cancelled;
    /** Set for the final read-back, whose reads are checked but not measured. */
    private boolean verifying;

    private int inflight;
    private long issued;
    private long cursor;
    private int writesSinceFlush;
    private int writesSinceFua;
    /** Least nanoseconds between two issues (rate limits); 0 for none. */
    private final double nanosPerIo;
    private boolean flushDue;
    private boolean flushInFlight;

    volatile long errors;
    volatile String firstError;
    volatile long mainPhaseNanos;
    long verifiedBlocks;
    long mismatches;
    final List<String> mismatchSamples = new ArrayList<>();

    Job(int index, BlockDevice device, WorkloadSpec spec, long regionStart, long regionBlocks) {
        this.device = device;
        this.spec = spec;
        this.regionStart = regionStart;
        this.regionBlocks = regionBlocks;
        this.rng = new SplittableRandom(spec.seed() * 1_000_003L + index);
        this.busy = spec.verify() ? new BitSet((int) regionBlocks) : null;
        this.generation = spec.verify() ? new int[(int) regionBlocks] : null;
        this.nanosPerIo = spec.nanosPerIo();
        boolean randomPayload = spec.rw().writes() && !spec.verify();
        for (int i = 0; i < spec.ioDepth(); i++) {
            byte[] data = new byte[spec.blockSize()];
            if (randomPayload) {
                rng.nextBytes(data);
            }
            free.add(new Slot(MemorySegment.ofArray(data),
                    spec.verify() ? MemorySegment.ofArray(new byte[spec.blockSize()]) : null));
        }
    }

    /** Ends the measured phase early; I/Os in flight still complete. */
    void requestStop() {
        stopRequested = true;
    }

    /** Ends the job as soon as its I/Os in flight complete, without the final verify pass. */
    void cancel() {
        cancelled = true;
        stopRequested = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t); // it may be waiting out a rate limit
        }
    }

    boolean cancelled() {
        return cancelled;
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        long start = System.nanoTime();
        long deadline = spec.runtimeNanos() > 0 ? start + spec.runtimeNanos() : Long.MAX_VALUE;
        long limit = spec.ioLimit() > 0 ? spec.ioLimit()
                : spec.runtimeNanos() > 0 ? Long.MAX_VALUE : regionBlocks;
        boolean timeLeft = true;
        boolean paced = nanosPerIo > 0;
        while (true) {
            reap();
            if (deadline != Long.MAX_VALUE && (paced || (issued & 15) == 0)) {
                timeLeft = System.nanoTime() - deadline < 0;
            }
            boolean more = timeLeft && !stopRequested && errors == 0 && issued < limit;
            if (flushDue) {
                if (inflight == 0) {
                    issueFlush();
                }
            } else if (!flushInFlight && more && !free.isEmpty()) {
                long wait = paced ? start + (long) (issued * nanosPerIo) - System.nanoTime() : 0;
                if (wait <= 0) {
                    issueNext();
                    continue;
                }
                // Not due yet: wait for the rate limit, or for a completion if one comes first.
                awaitCompletion(Math.min(wait, MAX_PACING_PARK_NANOS));
                continue;
            }
            if (inflight == 0 && !flushDue && !(more && !flushInFlight)) {
                break;
            }
            awaitCompletion(Long.MAX_VALUE);
        }
        mainPhaseNanos = System.nanoTime() - start;
        if (spec.verify() && errors == 0 && !cancelled) {
            verifyPass();
        }
    }

    /* ---- Issuing ---- */

    private void issueNext() {
        boolean read = pickRead();
        long block = pickBlock();
        if (block < 0) {
            return;
        }
        Slot slot = free.poll();
        slot.block = block;
        slot.offset = regionStart + block * spec.blockSize();
        if (busy != null) {
            busy.set((int) block);
        }
        if (read) {
            submit(slot, BioOp.READ, BioFlags.NONE);
        } else {
            if (generation != null) {
                slot.generation = generation[(int) block] + 1;
                VerifyPattern.fill(slot.buffer, spec.seed(), slot.offset, slot.generation);
            }
            boolean fua = spec.fuaEvery() > 0 && ++writesSinceFua >= spec.fuaEvery();
            if (fua) {
                writesSinceFua = 0;
            }
            submit(slot, BioOp.WRITE, fua ? BioFlags.FUA : BioFlags.NONE);
            if (spec.fsync() > 0 && ++writesSinceFlush >= spec.fsync()) {
                writesSinceFlush = 0;
                flushDue = true;
            }
        }
        issued++;
    }

    private boolean pickRead() {
        RwMode rw = spec.rw();
        if (rw == RwMode.RANDRW) {
            return rng.nextInt(100) < spec.rwMixRead();
        }
        return rw.reads();
    }

    /** The next block: random or sequential; with verify, never one with I/O in flight. */
    private long pickBlock() {
        if (!spec.rw().random()) {
            for (long tries = 0; tries < regionBlocks; tries++) {
                long b = cursor;
                cursor = (cursor + 1) % regionBlocks;
                if (busy == null || !busy.get((int) b)) {
                    return b;
                }
            }
            return -1;
        }
        for (int tries = 0; tries < 64; tries++) {
            long b = rng.nextLong(regionBlocks);
            if (busy == null || !busy.get((int) b)) {
                return b;
            }
        }
        int b = busy.nextClearBit(0);
        return b < regionBlocks ? b : -1;
    }

    private void issueFlush() {
        flushDue = false;
        flushInFlight = true;
        Slot slot = free.poll();
        slot.block = -1;
        submit(slot, BioOp.FLUSH, BioFlags.NONE);
    }

    private void submit(Slot slot, BioOp op, BioFlags flags) {
        slot.op = op;
        inflight++;
        slot.startNanos = System.nanoTime();
        Bio bio = op == BioOp.FLUSH
                ? Bio.flush(slot)
                : Bio.of(op, slot.offset, spec.blockSize(), flags, slot.buffer, slot);
        device.submit(bio);
    }

    /* ---- Completion ---- */

    private void completed(Slot slot) {
        if (Thread.currentThread() == thread) {
            doneHere.add(slot);
        } else {
            doneElsewhere.add(slot);
            if (parking) {
                LockSupport.unpark(thread);
            }
        }
    }

    private void reap() {
        Slot s;
        while ((s = doneHere.poll()) != null) {
            finish(s);
        }
        while ((s = doneElsewhere.poll()) != null) {
            finish(s);
        }
    }

    /**
     * Waits for a completion, at most {@code maxNanos} ({@link Long#MAX_VALUE}: only called with
     * I/O in flight, so one will come). A timed wait also ends early on {@link #cancel}.
     */
    private void awaitCompletion(long maxNanos) {
        if (!doneHere.isEmpty()) {
            return;
        }
        parking = true;
        if (maxNanos == Long.MAX_VALUE) {
            while (doneElsewhere.isEmpty()) {
                LockSupport.park(this);
            }
        } else {
            long until = System.nanoTime() + maxNanos;
            long left;
            while (doneElsewhere.isEmpty() && !cancelled && (left = until - System.nanoTime()) > 0) {
                LockSupport.parkNanos(this, left);
            }
        }
        parking = false;
    }

    private void finish(Slot slot) {
        inflight--;
        long latency = slot.endNanos - slot.startNanos;
        if (slot.status != IoStatus.OK) {
            recordError(slot);
        } else {
            switch (slot.op) {
                case READ -> {
                    if (!verifying) {
                        reads.recordValue(latency);
                    }
                    if (generation != null && generation[(int) slot.block] > 0) {
                        check(slot);
                    }
                }
                case WRITE -> {
                    writes.recordValue(latency);
                    if (generation != null) {
                        generation[(int) slot.block] = slot.generation;
                    }
                }
                case FLUSH -> flushes.recordValue(latency);
                default -> throw new IllegalStateException(slot.op.name());
            }
        }
        if (slot.op == BioOp.FLUSH) {
            flushInFlight = false;
        } else if (busy != null) {
            busy.clear((int) slot.block);
        }
        free.add(slot);
    }

    private void recordError(Slot slot) {
        if (errors == 0) {
            firstError = slot.op + " at " + slot.offset + ": " + slot.status;
        }
        errors++;
    }

    private void check(Slot slot) {
        verifiedBlocks++;
        String why = VerifyPattern.check(slot.buffer, slot.scratch, spec.seed(), slot.offset, generation[(int) slot.block]);
        if (why != null) {
            mismatches++;
            if (mismatchSamples.size() < MAX_REPORTED_MISMATCHES) {
                mismatchSamples.add(why);
            }
        }
    }

    /** Reads back every block this job wrote, {@code iodepth} at a time, and checks each. */
    private void verifyPass() {
        verifying = true;
        int next = 0;
        while (true) {
            reap();
            while (!free.isEmpty() && next < regionBlocks && !cancelled) {
                if (generation[next] > 0) {
                    Slot slot = free.poll();
                    slot.block = next;
                    slot.offset = regionStart + (long) next * spec.blockSize();
                    busy.set(next);
                    submit(slot, BioOp.READ, BioFlags.NONE);
                }
                next++;
            }
            if (inflight == 0 && (next >= regionBlocks || cancelled)) {
                return;
            }
            awaitCompletion(Long.MAX_VALUE);
        }
    }

    /** One I/O slot: its buffer and what is in flight in it. */
    private final class Slot implements BioCallback {
        final MemorySegment buffer;
        final MemorySegment scratch;
        BioOp op;
        long block;
        long offset;
        int generation;
        long startNanos;
        long endNanos;
        IoStatus status;

        Slot(MemorySegment buffer, MemorySegment scratch) {
            this.buffer = buffer;
            this.scratch = scratch;
        }

        @Override
        public void done(Bio bio) {
            endNanos = System.nanoTime();
            status = bio.status();
            completed(this);
        }
    }
}
