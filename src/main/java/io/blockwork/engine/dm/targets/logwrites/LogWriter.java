package io.blockwork.engine.dm.targets.logwrites;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * The log device's side of a log-writes target: where each entry goes, and when the super may
 * count it.
 *
 * <p>Design notes. The kernel's target hands entries to a thread that writes them one by one. Here
 * an entry gets its index and its place on the log device when it is appended (in the caller's
 * order, under {@link #lock}), and is written at once, without a thread: entries of different
 * appends may be in flight together and complete in any order, since each has its own sectors.
 * The super's {@code nr_entries} must only count entries that are on the log device, so it
 * follows the completed prefix (entries 0..n-1 all written). It is rewritten when that prefix
 * passes a flush, FUA or mark entry (the kernel rewrites it after FUA and mark entries; flushes
 * too here, so that a live log can be replayed up to its last flush without a mark), one super
 * write at a time, each with PREFLUSH and FUA so that the entries it counts are durable before it
 * is. A failed log write, or a full log device, disables logging for good, as in the kernel;
 * I/O to the logged device goes on.
 *
 * <p>Threads: {@link #append} runs on completion threads (the target's end-io); log writes
 * complete on any thread, possibly inside {@code submit}. Nothing is submitted or completed while
 * holding {@link #lock}, a leaf lock.
 */
final class LogWriter {

    private static final System.Logger LOG = System.getLogger(LogWriter.class.getName());
    private static final BioFlags SUPER_FLAGS = BioFlags.of(true, true, false);

    private final BlockDevice log;
    private final int sectorSize;
    /** The log device's size in 512-byte sectors. */
    private final long endSector;

    /** Leaf lock: guards every field below that is not volatile, and the writes of the volatile ones. */
    private final Object lock = new Object();
    /** Next free 512-byte sector on the log device. */
    private long nextSector;
    /** Entries appended (given an index and a place). */
    private volatile long entries;
    /** Entries 0..completed-1 are all on the log device. */
    private long completed;
    /** Entries past {@link #completed} that are on the log device already. */
    private final TreeSet<Long> completedAhead = new TreeSet<>();
    /** Ends (index + 1) of barrier entries the super has not yet been asked to count, ascending. */
    private final ArrayDeque<Long> barrierEnds = new ArrayDeque<>();
    /** The count the super should carry; it is written when no super write is in flight. */
    private long superWanted;
    private long superWritten;
    private boolean superInFlight;
    private final List<Waiter> waiters = new ArrayList<>();
    private volatile boolean enabled = true;
    private volatile String disabledReason;
    /** Set once {@link #start} wrote the empty super; lifecycle calls are serialised by the mapped device. */
    private volatile boolean started;

    private record Waiter(long entries, CompletableFuture<Void> done) {}

    /** One entry given its index and place on the log device, to be written by {@link #submit}. */
    record Placed(long index, long sector, byte[] bytes) {}

    LogWriter(BlockDevice log, int sectorSize) {
        this.log = log;
        this.sectorSize = sectorSize;
        this.endSector = log.sizeBytes() >> 9;
        this.nextSector = sectorSize >> 9;
    }

    /**
     * Starts the log: an empty super (nr_entries 0), written before any entry so that a log left
     * on the device by an earlier run is never read as this one. Called once, when the table
     * first becomes live; later calls do nothing.
     *
     * @throws io.blockwork.engine.block.BlockIoException if the log device fails the write
     */
    void start() {
        if (!started) {
            SyncIo.write(log, 0, MemorySegment.ofArray(superSector(0)), BioFlags.FUA);
            started = true;
        }
    }

    boolean started() {
        return started;
    }

    boolean enabled() {
        return enabled;
    }

    String disabledReason() {
        return disabledReason;
    }

    /** Entries appended so far (the status line's first number). */
    long entries() {
        return entries;
    }

    /** The last 512-byte sector given to an entry (the status line's second number). */
    long highestSector() {
        synchronized (lock) {
            return nextSector - 1;
        }
    }

    /** Appends {@code blocks} in order, as consecutive entries, and starts writing them. */
    void append(List<PendingBlock> blocks) {
        submit(place(blocks));
    }

    /**
     * Gives {@code blocks} their indexes and places, in order, without writing them yet: a caller
     * that must order entries against its own state places them under its lock and calls
     * {@link #submit} after releasing it.
     */
    List<Placed> place(List<PendingBlock> blocks) {
        List<Placed> placed = new ArrayList<>(blocks.size());
        synchronized (lock) {
            for (PendingBlock b : blocks) {
                if (!enabled) {
                    break;
                }
                long sector = nextSector;
                long next = sector + (b.bytes.length >> 9);
                if (next >= endSector) {
                    disable("Ran out of space on the log device " + log.name());
                    break;
                }
                nextSector = next;
                long index = entries;
                entries = index + 1;
                if (b.barrier()) {
                    barrierEnds.add(index + 1);
                }
                placed.add(new Placed(index, sector, b.bytes));
            }
        }
        return placed;
    }

    /** Writes entries {@link #place placed} before; no lock may be held. */
    void submit(List<Placed> placed) {
        failWaitersIfDisabled();
        for (Placed p : placed) {
            log.submit(Bio.write(p.sector << 9, MemorySegment.ofArray(p.bytes), BioFlags.NONE,
                    bio -> written(p.index, bio.status())));
        }
    }

    /**
     * Completes once the super counts every entry appended before this call: they are then on the
     * log device, durably, and a reader sees them. Fails if logging is or becomes disabled.
     */
    CompletableFuture<Void> publish() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        long write;
        synchronized (lock) {
            if (!enabled) {
                return CompletableFuture.failedFuture(new IllegalStateException(disabledReason));
            }
            if (superWritten >= entries) {
                return CompletableFuture.completedFuture(null);
            }
            waiters.add(new Waiter(entries, done));
            barrierEnds.add(entries);
            write = progressed();
        }
        writeSuper(write);
        return done;
    }

    private void written(long index, IoStatus status) {
        long write;
        synchronized (lock) {
            if (!status.ok()) {
                disable("Error writing log block " + index + " to " + log.name() + ": " + status);
                write = -1;
            } else {
                completedAhead.add(index);
                while (!completedAhead.isEmpty() && completedAhead.first() == completed) {
                    completedAhead.pollFirst();
                    completed++;
                }
                write = progressed();
            }
        }
        failWaitersIfDisabled();
        writeSuper(write);
    }

    /**
     * Caller holds the lock: after the completed prefix grew (or a waiter came), decides whether a
     * super write starts now; returns the count to write, or -1.
     */
    private long progressed() {
        while (!barrierEnds.isEmpty() && barrierEnds.peekFirst() <= completed) {
            barrierEnds.pollFirst();
            superWanted = completed;
        }
        if (superInFlight || !enabled || superWanted <= superWritten) {
            return -1;
        }
        superInFlight = true;
        return superWanted;
    }

    private void writeSuper(long count) {
        if (count < 0) {
            return;
        }
        log.submit(Bio.write(0, MemorySegment.ofArray(superSector(count)), SUPER_FLAGS,
                bio -> superDone(count, bio.status())));
    }

    private void superDone(long count, IoStatus status) {
        List<Waiter> ready = new ArrayList<>();
        long write;
        synchronized (lock) {
            superInFlight = false;
            if (status.ok()) {
                superWritten = count;
                waiters.removeIf(w -> w.entries <= count && ready.add(w));
            } else {
                disable("Error writing the log super to " + log.name() + ": " + status);
            }
            write = progressed();
        }
        ready.forEach(w -> w.done.complete(null));
        failWaitersIfDisabled();
        writeSuper(write);
    }

    /** Caller holds the lock. */
    private void disable(String reason) {
        if (enabled) {
            disabledReason = reason;
            enabled = false;
            LOG.log(Level.ERROR, reason + "; logging disabled");
        }
    }

    private void failWaitersIfDisabled() {
        if (enabled) {
            return;
        }
        List<Waiter> failed;
        synchronized (lock) {
            failed = List.copyOf(waiters);
            waiters.clear();
        }
        failed.forEach(w -> w.done.completeExceptionally(new IllegalStateException(disabledReason)));
    }

    private byte[] superSector(long count) {
        byte[] b = new byte[sectorSize];
        LogFormat.encodeSuper(b, count, sectorSize);
        return b;
    }
}
