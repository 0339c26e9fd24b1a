package io.blockwork.engine.dm.targets.logwrites;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.BlockIoException;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.EndIo;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetArgs;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetException;
import io.blockwork.engine.dm.TargetType;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * dm-log-writes: passes I/O through to a device and records every write, in the order it became
 * durable, on a log device, so that the device can be rebuilt as it was at any point of the log
 * ({@link WriteLog}, {@link LogReplayer}; the kernel's {@code replay-log}).
 *
 * <pre>
 * log-writes &lt;dev&gt; &lt;log dev&gt;
 *   &lt;dev&gt;      the device written through (reads go there too)
 *   &lt;log dev&gt;  where the log is kept ({@link LogFormat}); its logical block size may not exceed &lt;dev&gt;'s
 * </pre>
 *
 * What the log holds (Linux's semantics): a write is logged only once it completed <em>and</em> a
 * flush that was sent after it completed, just before that flush's FLUSH entry; so the log lists
 * what was durable, in the order it became so. A FUA write is logged as soon as it completed. A
 * discard is logged like a write, without data; Blockwork logs write-zeroes as discards too (both
 * leave zeros behind here; the kernel would log a write-zeroes with data it never wrote). Marks
 * are logged when sent. Unlike the kernel, a write or flush that failed is not logged as durable:
 * a failed write is left out, and the writes a failed flush covered wait for the next flush.
 * Entry sectors are sectors of {@code <dev>}, in units of its logical block size. One more
 * difference, which makes the log exact where the kernel's is too pessimistic: a flush takes the
 * writes completed before it was mapped; when flushes overlap and a later one completes first, the
 * kernel logs the earlier flush's writes only with that flush, after the later flush's entry,
 * although they completed before the later flush was sent and so were durable when it completed.
 * Here the flush that completes logs, before its own entry, the writes of every flush mapped
 * before it that is still in flight; a replay to any flush entry then holds every write its
 * submitter was promised. And a FUA write, logged at once, removes what it overwrote from older
 * writes still waiting for a flush, which the kernel would log after it.
 *
 * <p>Status INFO {@code <logged entries> <highest log sector>} (sectors of 512 bytes), with
 * {@code logging_disabled} appended after a log write failed or the log device filled up; TABLE
 * {@code <dev> <log dev>}. Message {@code mark <name>} logs a named entry and answers once the
 * log's super counts it (and so everything logged before it). A table starts a new log when it
 * first becomes live (an empty super is written first); when the table is dropped, the writes not
 * yet flushed are logged anyway, then the mark {@code dm-log-writes-end}, as the kernel does.
 */
public final class LogWritesTarget implements Target {

    public static final TargetType TYPE = new TargetType("log-writes", version(1, 1, 0), "<dev> <log dev>", 2, 2,
            LogWritesTarget::construct);

    /** How long a mark, or the end of the log when the table is dropped, may wait for the log device. */
    static final long PUBLISH_TIMEOUT_SECONDS = 30;

    private static final System.Logger LOG = System.getLogger(LogWritesTarget.class.getName());

    private final BlockDevice dev;
    private final BlockDevice logDev;
    private final long lengthSectors;
    private final int sectorSize;
    private final LogWriter writer;

    /**
     * Guards {@link #unflushed} and {@link #flushing}. Taken before the writer's lock (to place a
     * flush's entries in the same step as taking them), never held across I/O.
     */
    private final Object lock = new Object();
    /** Guarded by {@link #lock}: writes that completed since the last flush was mapped, oldest first. */
    private List<PendingBlock> unflushed = new ArrayList<>();
    /** Guarded by {@link #lock}: flushes mapped and not yet completed, in map order. */
    private final ArrayDeque<PendingBlock> flushing = new ArrayDeque<>();

    private LogWritesTarget(BlockDevice dev, BlockDevice logDev, long lengthSectors) {
        this.dev = dev;
        this.logDev = logDev;
        this.lengthSectors = lengthSectors;
        this.sectorSize = dev.limits().logicalBlockSize();
        this.writer = new LogWriter(logDev, sectorSize);
    }

    static Target construct(TargetContext ti, TargetArgs args) throws TargetException {
        BlockDevice dev = args.readDevice("Device lookup failed");
        BlockDevice logDev = args.readDevice("Log device lookup failed");
        if (dev == logDev) {
            throw new TargetException("the log device " + logDev.name() + " is also the logged device");
        }
        int sectorSize = dev.limits().logicalBlockSize();
        int logBlock = logDev.limits().logicalBlockSize();
        if (logBlock > sectorSize) {
            throw new TargetException("the log device " + logDev.name() + " has " + logBlock
                    + "-byte blocks, larger than the " + sectorSize + "-byte sectors of " + dev.name()
                    + " that the log is written in");
        }
        if (logDev.sizeBytes() < 3L * sectorSize) {
            throw new TargetException("the log device " + logDev.name() + " is too small: " + logDev.sizeBytes()
                    + " bytes hold no entry after the " + sectorSize + "-byte super");
        }
        return new LogWritesTarget(dev, logDev, ti.lengthSectors());
    }

    /* ---- I/O ---- */

    @Override
    public MapResult map(Bio bio) {
        if (writer.enabled()) {
            switch (bio.op()) {
                case READ -> { }
                case WRITE -> {
                    PendingBlock b = PendingBlock.write(bio.offset(), bio.data(), bio.fua(), bio.preflush(), sectorSize);
                    if (bio.preflush()) {
                        startFlush(b);
                    }
                    bio.context(b);
                }
                case DISCARD, WRITE_ZEROES -> bio.context(PendingBlock.discard(bio.offset(), bio.length(), sectorSize));
                case FLUSH -> {
                    PendingBlock b = PendingBlock.flush(sectorSize);
                    startFlush(b);
                    bio.context(b);
                }
            }
        }
        return MapResult.remap(dev, bio.offset());
    }

    /** Logs what the completed bio made durable, or keeps it for the next flush. */
    @Override
    public EndIo endIo(Bio bio, IoStatus status) {
        if (bio.context() instanceof PendingBlock b) {
            if (b.flags.contains(LogFormat.Flag.FLUSH)) {
                endFlush(b, status.ok());
            } else if (!status.ok()) {
                return EndIo.done(status);
            } else if (b.flags.contains(LogFormat.Flag.FUA)) {
                endFua(b);
            } else {
                synchronized (lock) {
                    unflushed.add(b);
                }
            }
        }
        return EndIo.done(status);
    }

    /** A flush is mapped: it takes the writes completed so far. */
    private void startFlush(PendingBlock flush) {
        synchronized (lock) {
            flush.covered = takeUnflushed();
            flushing.add(flush);
        }
    }

    /**
     * A flush completed. If it succeeded, the writes it took are durable, and so are those of every
     * flush mapped before it and still in flight: they are logged, then the flush. If it failed,
     * nothing became durable: its writes go back in front of the unflushed ones, for the next flush.
     */
    private void endFlush(PendingBlock flush, boolean ok) {
        List<LogWriter.Placed> placed;
        synchronized (lock) {
            if (!ok) {
                flushing.remove(flush);
                if (!flush.covered.isEmpty()) {
                    List<PendingBlock> all = new ArrayList<>(flush.covered.size() + unflushed.size());
                    all.addAll(flush.covered);
                    all.addAll(unflushed);
                    unflushed = all;
                }
                return;
            }
            List<PendingBlock> entries = new ArrayList<>();
            for (Iterator<PendingBlock> it = flushing.iterator(); ; ) {
                PendingBlock f = it.next();
                entries.addAll(f.covered);
                f.covered = List.of();
                if (f == flush) {
                    it.remove();
                    break;
                }
            }
            entries.add(flush);
            if (flush.flags.contains(LogFormat.Flag.FUA)) {
                supersede(flush);
            }
            placed = writer.place(entries);
        }
        writer.submit(placed);
    }

    /** A FUA write completed: it is durable now, and logged ahead of older writes still waiting. */
    private void endFua(PendingBlock fua) {
        List<LogWriter.Placed> placed;
        synchronized (lock) {
            supersede(fua);
            placed = writer.place(List.of(fua));
        }
        writer.submit(placed);
    }

    /**
     * Caller holds {@link #lock}. A FUA write is logged at once, before older writes that still
     * wait for a flush; replayed after it, those would put back data it overwrote, which no power
     * cut can do (the kernel's log has this flaw). So whatever it overwrote is cut out of them.
     */
    private void supersede(PendingBlock fua) {
        unflushed = without(unflushed, fua);
        for (PendingBlock f : flushing) {
            f.covered = without(f.covered, fua);
        }
    }

    private static List<PendingBlock> without(List<PendingBlock> waiting, PendingBlock newer) {
        if (waiting.stream().noneMatch(b -> b.overlaps(newer))) {
            return waiting;
        }
        List<PendingBlock> left = new ArrayList<>(waiting.size());
        for (PendingBlock b : waiting) {
            if (b.overlaps(newer)) {
                left.addAll(b.without(newer));
            } else {
                left.add(b);
            }
        }
        return left;
    }

    private List<PendingBlock> takeUnflushed() {
        synchronized (lock) {
            if (unflushed.isEmpty()) {
                return List.of();
            }
            List<PendingBlock> taken = unflushed;
            unflushed = new ArrayList<>();
            return taken;
        }
    }

    /** Every flush must reach this target, which logs it; it holds no bios back. */
    @Override
    public boolean flushBypassesMap() {
        return false;
    }

    /* ---- Lifecycle ---- */

    /** The first time the table becomes live: an empty super starts the log. */
    @Override
    public void preresume() throws TargetException {
        try {
            writer.start();
        } catch (BlockIoException e) {
            throw new TargetException("cannot start the log on " + logDev.name() + ": " + e.getMessage());
        }
    }

    /** The kernel's dtr: the writes not yet flushed are logged anyway, then the end mark. */
    @Override
    public void close() {
        if (!writer.started() || !writer.enabled()) {
            return;
        }
        List<PendingBlock> last = new ArrayList<>(takeUnflushed());
        last.add(PendingBlock.mark(LogFormat.END_MARK, sectorSize));
        writer.append(last);
        try {
            await(writer.publish());
        } catch (TargetException e) {
            LOG.log(Level.WARNING, "log-writes on " + dev.name() + ": the end of the log on " + logDev.name()
                    + " may be incomplete: " + e.getMessage());
        }
    }

    @Override
    public String message(List<String> argv) throws TargetException {
        if (argv.size() != 2) {
            throw new TargetException("Invalid log-writes message arguments, expect 2 arguments, got " + argv.size()
                    + " (mark <name>)");
        }
        if (!argv.getFirst().equalsIgnoreCase("mark")) {
            throw new TargetException("Unrecognised log writes target message received: " + argv.getFirst()
                    + " (log-writes takes: mark <name>)");
        }
        if (!writer.enabled()) {
            throw new TargetException("logging is disabled: " + writer.disabledReason());
        }
        writer.append(List.of(PendingBlock.mark(argv.get(1), sectorSize)));
        await(writer.publish());
        return "";
    }

    private static void await(CompletableFuture<Void> published) throws TargetException {
        try {
            published.get(PUBLISH_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new TargetException("logging is disabled: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new TargetException("the log device did not take the entries within " + PUBLISH_TIMEOUT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TargetException("interrupted while waiting for the log device");
        }
    }

    /* ---- Status ---- */

    @Override
    public String status(StatusType type) {
        return switch (type) {
            case INFO -> writer.entries() + " " + writer.highestSector() + (writer.enabled() ? "" : " logging_disabled");
            case TABLE -> dev.name() + " " + logDev.name();
        };
    }

    /** The logged device over the target's length, then the whole log device (so it is held too). */
    @Override
    public List<DeviceRange> devices() {
        return List.of(new DeviceRange(dev, 0, lengthSectors), new DeviceRange(logDev, 0, logDev.sizeBytes() >> 9));
    }

    /** Entries logged so far; a caller that saw a write or flush complete finds its entries below this. */
    public long loggedEntries() {
        return writer.entries();
    }

    /** Waits until the log's super counts every entry logged so far (at most the publish timeout). */
    public void publish() throws TargetException {
        await(writer.publish());
    }

    public BlockDevice logDevice() {
        return logDev;
    }

    @Override
    public String toString() {
        return "log-writes " + status(StatusType.TABLE);
    }
}
