package io.blockwork.engine.disk;

import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.CacheFlusher;
import io.blockwork.engine.block.DeadlineScheduler;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.IoTimer;
import io.blockwork.engine.block.Plug;
import io.blockwork.engine.block.PlugTarget;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

/**
 * A backing disk: a request queue in front of a {@link Medium}.
 *
 * <p>The queue is where the block layer's request-based machinery lives, in one place for every
 * medium:
 * <ul>
 *   <li>plugging: with a {@link Plug} open on the submitting thread, plain reads and writes wait
 *       in it and come back merged into runs ({@link #dispatchRun});
 *   <li>the flush sequence of blk-flush: with a writeback cache, PREFLUSH runs a flush before the
 *       data, and FUA either goes to the medium natively or is emulated with a flush after the
 *       data; with writethrough, flushes complete at once and FUA is a no-op;
 *   <li>flush merging through the disk's {@link CacheFlusher} strategy;
 *   <li>the queue-depth limit, the latency model (completions fire on the {@link IoTimer}, so a
 *       waiting request holds no thread) and error injection.
 * </ul>
 * A medium that blocks (a file) is driven from a worker thread; memory and null media run inline
 * on the submitter, and complete inline when no latency is modelled.
 */
public final class Disk extends AbstractBlockDevice implements PlugTarget {

    private static final System.Logger LOG = System.getLogger(Disk.class.getName());
    private static final Executor WORKERS = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("blockwork-disk-io-", 0).factory());

    private final Medium medium;
    private final CacheMode cache;
    private final DeviceLimits limits;
    private final CacheFlusher flusher;
    private final DeadlineScheduler timer;
    private final QueueSlots slots;
    private final LongAdder merges = new LongAdder();
    private volatile LatencyModel latency;
    private volatile DiskFaults faults = DiskFaults.NONE;
    private final boolean writeback;
    /**
     * Writeback memory disks only (the power cut's model), else null. A media operation takes the
     * read lock from its fault check to the medium's change, {@link #powerCut} the write lock: an
     * operation that passed its check before the power failed has finished before the cut, so no
     * flush or FUA write completes OK after the cut has thrown its data away.
     */
    private final ReentrantReadWriteLock power;

    public Disk(String name, Medium medium, DiskConfig config, DeadlineScheduler timer) {
        super(name);
        this.medium = medium;
        this.cache = config.cache();
        this.writeback = cache == CacheMode.WRITEBACK;
        this.limits = DeviceLimits.of(config.logicalBlockSize());
        this.timer = timer;
        this.latency = config.latency();
        this.slots = new QueueSlots(config.queueDepth());
        this.flusher = CacheFlusher.create(config.flushMerging(), this::mediaFlush);
        this.power = writeback && medium instanceof MemoryMedium ? new ReentrantReadWriteLock() : null;
    }

    public static Disk memory(String name, long size, DiskConfig config) {
        return new Disk(name, new MemoryMedium(size, config.cache()), config, IoTimer.shared());
    }

    public static Disk nullDisk(String name, long size, DiskConfig config) {
        return new Disk(name, new NullMedium(size), config, IoTimer.shared());
    }

    public static Disk createFile(String name, Path path, long size, DiskConfig config) {
        return new Disk(name, FileMedium.create(path, size, config.cache()), config, IoTimer.shared());
    }

    public static Disk openFile(String name, Path path, long size, DiskConfig config) {
        return new Disk(name, FileMedium.open(path, size, config.cache()), config, IoTimer.shared());
    }

    /* ---- Submission ---- */

    @Override
    protected void dispatch(Bio bio) {
        Plug plug = Plug.current();
        if (plug != null && Plug.mayHold(bio)) {
            plug.hold(this, bio);
            return;
        }
        if (bio.op() == BioOp.FLUSH) {
            flush(bio);
        } else {
            admit(bio, null);
        }
    }

    @Override
    public void dispatchRun(List<Bio> run) {
        if (run.size() == 1) {
            admit(run.getFirst(), null);
        } else {
            merges.add(run.size() - 1);
            admit(null, run);
        }
    }

    private void flush(Bio bio) {
        if (!writeback) {
            bio.endio();
            return;
        }
        flusher.flush(bio::endio);
    }

    /** A request is one bio, or a merged run of them; exactly one of the two is non-null. */
    private void admit(Bio single, List<Bio> run) {
        if (slots.limit() == 0) {
            start(single, run, false);
            return;
        }
        QueueSlots.Admission a = slots.admit(() -> start(single, run, true));
        if (a != QueueSlots.Admission.QUEUED) {
            start(single, run, a == QueueSlots.Admission.SLOT);
        }
    }

    private void start(Bio single, List<Bio> run, boolean holdsSlot) {
        if (medium.blocking()) {
            WORKERS.execute(() -> serve(single, run, holdsSlot));
        } else {
            serve(single, run, holdsSlot);
        }
    }

    private void serve(Bio single, List<Bio> run, boolean holdsSlot) {
        IoStatus status = IoStatus.OK;
        BioOp op;
        if (single != null) {
            op = single.op();
            status = perform(single);
        } else {
            op = run.getFirst().op();
            for (Bio b : run) {
                IoStatus s = perform(b);
                if (!s.ok() && status.ok()) {
                    status = s;
                }
            }
        }
        long delay = latency.sample(op);
        IoStatus result = status;
        if (delay == 0) {
            finish(single, run, holdsSlot, result);
        } else {
            timer.schedule(delay, () -> finish(single, run, holdsSlot, result));
        }
    }

    private IoStatus perform(Bio bio) {
        Lock l = power == null ? null : power.readLock();
        if (l == null) {
            return performUnderPower(bio);
        }
        l.lock();
        try {
            return performUnderPower(bio);
        } finally {
            l.unlock();
        }
    }

    private IoStatus performUnderPower(Bio bio) {
        DiskFaults f = faults;
        if (f.any() && (bio.op() == BioOp.READ ? f.failReads() : f.failWrites())) {
            return IoStatus.IO_ERROR;
        }
        try {
            switch (bio.op()) {
                case READ -> medium.read(bio.offset(), bio.data());
                case WRITE -> medium.write(bio.offset(), bio.data(), bio.fua() && writeback && medium.nativeFua());
                case DISCARD -> medium.discard(bio.offset(), bio.length());
                case WRITE_ZEROES -> medium.writeZeroes(bio.offset(), bio.length());
                case FLUSH -> throw new IllegalStateException("flushes do not reach the medium this way");
            }
            return IoStatus.OK;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> name() + ": " + bio + " failed", e);
            return IoStatus.IO_ERROR;
        }
    }

    private void finish(Bio single, List<Bio> run, boolean holdsSlot, IoStatus status) {
        if (holdsSlot) {
            slots.release();
        }
        if (single != null) {
            complete(single, status);
        } else {
            for (Bio b : run) {
                complete(b, status);
            }
        }
    }

    /** The POSTFLUSH step: FUA on a writeback cache the medium cannot honour natively. */
    private void complete(Bio bio, IoStatus status) {
        if (status.ok() && bio.fua() && writeback && !medium.nativeFua()) {
            flusher.flush(bio::endio);
        } else {
            bio.endio(status);
        }
    }

    /** One media flush: the strategy decides how many of these the flush requests cost. */
    private void mediaFlush(Consumer<IoStatus> done) {
        Runnable run = () -> {
            Lock l = power == null ? null : power.readLock();
            if (l != null) {
                l.lock();
            }
            IoStatus status = IoStatus.OK;
            try {
                if (faults.failFlushes()) {
                    status = IoStatus.IO_ERROR;
                } else {
                    medium.flush();
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, () -> name() + ": flush failed", e);
                status = IoStatus.IO_ERROR;
            } finally {
                if (l != null) {
                    l.unlock();
                }
            }
            long delay = latency.sampleFlush();
            IoStatus result = status;
            if (delay == 0) {
                done.accept(result);
            } else {
                timer.schedule(delay, () -> done.accept(result));
            }
        };
        if (medium.blocking()) {
            WORKERS.execute(run);
        } else {
            run.run();
        }
    }

    /** The medium's answer: a disk keeps no cache apart from its medium's. */
    @Override
    public void allocation(long offset, long length, Extents out) {
        medium.allocation(offset, length, out);
    }

    /* ---- Management ---- */

    /** Drops every write that is not durable (memory media with a writeback cache). */
    public void powerCut() {
        if (!writeback || !(medium instanceof MemoryMedium)) {
            throw new UnsupportedOperationException("a power cut is modelled only on writeback memory disks");
        }
        power.writeLock().lock();
        try {
            medium.powerCut();
        } finally {
            power.writeLock().unlock();
        }
    }

    /**
     * Cuts the power of several writeback memory disks at one instant: from it on none of them
     * takes I/O (each fails every request, as {@link DiskFaults#ALL}, until its faults are
     * cleared: the power is back) and each has dropped every write that was not durable. Every
     * disk's power lock is held at once, so no request on one disk still changes its medium after
     * another disk refused one: a caller never sees a state in which some disks had lost power
     * while others still took writes and flushes, which no real power cut leaves. Callers cutting
     * overlapping sets concurrently must list the disks in the same order.
     */
    public static void powerCut(List<Disk> disks) {
        for (Disk d : disks) {
            if (d.power == null) {
                throw new UnsupportedOperationException("a power cut is modelled only on writeback memory disks");
            }
        }
        int locked = 0;
        try {
            for (Disk d : disks) {
                d.power.writeLock().lock();
                locked++;
            }
            for (Disk d : disks) {
                d.faults = DiskFaults.ALL;
                d.medium.powerCut();
            }
        } finally {
            for (int i = 0; i < locked; i++) {
                disks.get(i).power.writeLock().unlock();
            }
        }
    }

    public void latency(LatencyModel model) {
        this.latency = model;
    }

    public LatencyModel latency() {
        return latency;
    }

    public void queueDepth(int depth) {
        slots.limit(depth);
    }

    public int queueDepth() {
        return slots.limit();
    }

    public void faults(DiskFaults f) {
        this.faults = f;
    }

    public DiskFaults faults() {
        return faults;
    }

    public CacheMode cache() {
        return cache;
    }

    public Medium medium() {
        return medium;
    }

    public long allocatedBytes() {
        return medium.allocatedBytes();
    }

    /** Flushes that reached the medium, after merging. */
    public long mediaFlushes() {
        return writeback ? flusher.mediaFlushes() : 0;
    }

    /** Bios that joined an earlier one in a plug rather than becoming requests of their own. */
    public long merges() {
        return merges.sum();
    }

    public void close() {
        medium.close();
    }

    @Override
    public long sizeBytes() {
        return medium.sizeBytes();
    }

    @Override
    public DeviceLimits limits() {
        return limits;
    }
}
