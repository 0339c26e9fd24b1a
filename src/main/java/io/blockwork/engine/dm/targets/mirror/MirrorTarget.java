package io.blockwork.engine.dm.targets.mirror;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.dm.ArgBound;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.EndIo;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetArgs;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetException;
import io.blockwork.engine.dm.TargetType;
import java.util.ArrayList;
import java.util.List;

/**
 * dm-raid1, the {@code mirror} target: every leg holds the whole target; writes go to all legs,
 * reads to one; a region log records which regions may differ between legs so that they, and
 * only they, are copied again after a crash or a leg replacement.
 *
 * <pre>
 * mirror &lt;log type&gt; &lt;#log args&gt; &lt;log args&gt;... &lt;#legs&gt; &lt;dev&gt; &lt;offset&gt;... [&lt;#features&gt; &lt;features&gt;...]
 *   core &lt;region size&gt; [[no]sync]            the region log in memory
 *   disk &lt;log dev&gt; &lt;region size&gt; [[no]sync]  the region log on a device (see {@link DiskLog})
 *     region size: sectors, a power of two of at least 8, dividing the target length
 *     sync: copy every region at resume; nosync: the legs are known to agree
 *   #legs: 2 to 9, each &lt;dev&gt; &lt;offset&gt; (sectors); leg 0 is the default (recovery source)
 *   features (#features counts the words):
 *     handle_errors          a failing leg is marked and I/O goes on with the others
 *     io_throttle &lt;bytes/s&gt;  Blockwork's: limits recovery copying; 0 for none (also a message)
 *     keep_log               refused: it is for cluster logs
 * </pre>
 *
 * Status INFO: {@code <#legs> <dev>... <in-sync>/<regions> 1 <health letters> <log status>},
 * e.g. {@code 2 d0 d1 12/64 1 AA 1 core}; health A (alive), F (flush failed), D (write failed),
 * S (recovery failed), R (read failed). TABLE: the canonical arguments. Message:
 * {@code io_throttle <bytes/s>}.
 *
 * <p>I/O: reads are mapped at once to a leg balanced by region and retried on another leg if
 * they fail; writes, discards and write-zeroes go to the {@link MirrorWorker}; empty flushes
 * reach every leg and the log device (one flush bio each, through {@link #mapFlush}; they cannot
 * bypass the map, since the log device is not a data device). Bios are split at regions. How the
 * worker and its copier release their batches is the device's {@code batchDispatch} strategy.
 */
public final class MirrorTarget implements Target {

    public static final TargetType TYPE = new TargetType("mirror", version(1, 14, 0),
            "<log type> <#log args> <log args>... <#legs> <dev> <offset>... [<#features> <features>...]",
            0, Integer.MAX_VALUE, MirrorTarget::construct);

    static final int MAX_LEGS = 9;

    private static final ArgBound LEGS = new ArgBound(2, MAX_LEGS, "Invalid number of mirrors");
    private static final ArgBound FEATURES = new ArgBound(0, ArgBound.UINT_MAX, "Invalid number of features");
    private static final ArgBound THROTTLE = new ArgBound(0, Long.MAX_VALUE >> 1, "Invalid io_throttle (bytes per second)");

    private final MirrorSet set;
    private final MirrorWorker worker;
    private final long lengthSectors;

    private MirrorTarget(MirrorSet set, long lengthSectors) {
        this.set = set;
        this.lengthSectors = lengthSectors;
        this.worker = new MirrorWorker(set, set.ti.batchDispatch());
    }

    static Target construct(TargetContext ti, TargetArgs args) throws TargetException {
        DirtyLog.Spec logSpec = DirtyLog.parse(args, ti.lengthSectors());
        long n = args.readUnsigned(LEGS);
        if (args.remaining() < 2 * n) {
            throw new TargetException("Too few mirror arguments: " + n + " legs need " + 2 * n
                    + " device/offset arguments, " + args.remaining() + " given");
        }
        List<Leg> legs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            BlockDevice dev = args.readDevice("Device lookup failure");
            long offset = args.readSector("Invalid offset");
            for (Leg other : legs) {
                if (other.dev == dev) {
                    throw new TargetException("legs " + other.index + " and " + i + " are both on device " + dev.name());
                }
            }
            if (dev == logSpec.device()) {
                throw new TargetException("the log device " + dev.name() + " is also leg " + i);
            }
            legs.add(new Leg(i, dev, offset));
        }
        boolean handleErrors = false;
        long throttle = 0;
        if (args.remaining() > 0) {
            long words = args.readUnsigned(FEATURES);
            if (words > args.remaining()) {
                throw new TargetException("Not enough arguments to support feature count: " + words + " announced, "
                        + args.remaining() + " given");
            }
            long end = args.remaining() - words;
            while (args.remaining() > end) {
                String f = args.next("Not enough arguments to support feature count");
                switch (f) {
                    case "handle_errors" -> handleErrors = true;
                    case "keep_log" -> throw new TargetException("keep_log is not supported (it is for cluster logs)");
                    case "io_throttle" -> {
                        if (args.remaining() == end) {
                            throw new TargetException("io_throttle needs a value: " + words
                                    + " feature arguments announced");
                        }
                        throttle = args.readUnsigned(THROTTLE);
                    }
                    default -> throw new TargetException("Unrecognised feature requested: '" + f + "'");
                }
            }
        }
        if (args.remaining() > 0) {
            throw new TargetException("Too many mirror arguments: " + args.remaining() + " left over");
        }
        DirtyLog log = logSpec.create(legs, ti.lengthSectors());
        return new MirrorTarget(new MirrorSet(legs, log, handleErrors, throttle, ti), ti.lengthSectors());
    }

    /* ---- I/O ---- */

    @Override
    public MapResult map(Bio bio) {
        switch (bio.op()) {
            case READ -> new MirrorRead(set, bio).start();
            case WRITE, DISCARD, WRITE_ZEROES -> {
                if (!worker.writeDirect(bio)) {
                    worker.queue(bio);
                }
            }
            case FLUSH -> {
                return mapFlush(bio, 0);
            }
        }
        return MapResult.SUBMITTED;
    }

    /** Flush {@code i} goes to leg {@code i}; the one after the legs to the log device. */
    @Override
    public MapResult mapFlush(Bio flush, int index) {
        if (index >= set.legs.size()) {
            flush.context(-1);
            return MapResult.remap(set.log.device(), 0);
        }
        Leg leg = set.legs.get(index);
        if (set.handleErrors && leg.lostWrites()) {
            return MapResult.OK; // a leg out of service holds nothing a flush must make durable
        }
        flush.context(index);
        return MapResult.remap(leg.dev, 0);
    }

    /** A failed leg flush marks the leg; with {@code handle_errors} the flush still succeeds if a leg is left. */
    @Override
    public EndIo endIo(Bio bio, IoStatus status) {
        if (bio.op() == BioOp.FLUSH && !status.ok() && status != IoStatus.NOT_SUPPORTED
                && bio.context() instanceof Integer index) {
            if (index < 0) {
                set.log.flushFailed();
            } else {
                set.fail(set.legs.get(index), Leg.Failure.FLUSH);
                if (set.handleErrors && !set.writableLegs().isEmpty()) {
                    return EndIo.done(IoStatus.OK);
                }
            }
        }
        return EndIo.done(status);
    }

    @Override
    public int numFlushBios() {
        return set.legs.size() + (set.log.persistent() ? 1 : 0);
    }

    @Override
    public long maxIoSectors() {
        return set.log.regionSectors;
    }

    /* ---- Lifecycle ---- */

    /** Starts the worker and loads the region log (a disk log is read here, after the previous table's last flush). */
    @Override
    public void preresume() {
        worker.start();
        worker.run(() -> set.log.resume(worker));
    }

    @Override
    public void resume() {
        worker.resumeWork();
    }

    /** Stops recovery and waits for the copies in flight; writes drain through the worker as usual. */
    @Override
    public void presuspend(boolean noflush) {
        worker.stopRecovery();
    }

    @Override
    public void presuspendUndo() {
        worker.resumeWork();
    }

    /** Every quiet region is recorded clean, so the next table resumes from an up-to-date log. */
    @Override
    public void postsuspend() {
        worker.freeze();
    }

    @Override
    public void close() {
        worker.close();
    }

    @Override
    public String message(List<String> argv) throws TargetException {
        if (argv.size() == 2 && argv.getFirst().equals("io_throttle")) {
            worker.throttle(parseRate(argv.get(1)));
            return "";
        }
        throw new TargetException("unrecognised message '" + String.join(" ", argv)
                + "' (mirror takes: io_throttle <bytes/s>)");
    }

    private static long parseRate(String s) throws TargetException {
        long v = DirtyLog.parseUnsigned(s);
        if (v < 0) {
            throw new TargetException(THROTTLE.error() + ": '" + s + "'");
        }
        return v;
    }

    /* ---- Status ---- */

    @Override
    public String status(StatusType type) {
        StringBuilder s = new StringBuilder();
        switch (type) {
            case INFO -> {
                s.append(set.legs.size());
                StringBuilder health = new StringBuilder();
                for (Leg l : set.legs) {
                    s.append(' ').append(l.dev.name());
                    health.append(l.health());
                }
                s.append(' ').append(set.log.syncCount()).append('/').append(set.log.regionCount)
                        .append(" 1 ").append(health).append(' ').append(set.log.status(StatusType.INFO));
            }
            case TABLE -> {
                s.append(set.log.status(StatusType.TABLE)).append(' ').append(set.legs.size());
                for (Leg l : set.legs) {
                    s.append(' ').append(l.dev.name()).append(' ').append(l.offsetSectors);
                }
                List<String> features = new ArrayList<>();
                if (set.handleErrors) {
                    features.add("handle_errors");
                }
                if (set.throttle() > 0) {
                    features.add("io_throttle " + set.throttle());
                }
                if (!features.isEmpty()) {
                    s.append(' ').append(features.size() + (set.throttle() > 0 ? 1 : 0))
                            .append(' ').append(String.join(" ", features));
                }
            }
        }
        return s.toString();
    }

    @Override
    public List<DeviceRange> devices() {
        List<DeviceRange> out = new ArrayList<>();
        for (Leg l : set.legs) {
            out.add(new DeviceRange(l.dev, l.offsetSectors, lengthSectors));
        }
        out.addAll(set.log.devices());
        return out;
    }

    /* ---- For the service layer, tests and benchmarks ---- */

    /** Regions in sync across the legs, and all regions: the status line's {@code <in-sync>/<total>}. */
    public long syncedRegions() {
        return set.log.syncCount();
    }

    public long regionCount() {
        return set.log.regionCount;
    }

    /** The health letter of each leg, in table order. */
    public String health() {
        StringBuilder s = new StringBuilder();
        set.legs.forEach(l -> s.append(l.health()));
        return s.toString();
    }

    /** The recovery throttle in bytes per second; 0 for none. */
    public long throttle() {
        return set.throttle();
    }

    /** The device's batch dispatch strategy, as the worker and the copier use it. */
    public BatchDispatch.Kind dispatch() {
        return set.ti.batchDispatch();
    }

    /** Writes the submitting thread sent to the legs itself: regions already dirty, {@code explicit} only. */
    public long directWrites() {
        return worker.directWrites();
    }

    /** Times a 3 ms unplug timer, not the worker, released the mirror's bios (strategy {@code timer}). */
    public long timerUnplugs() {
        return worker.timerUnplugs();
    }

    /** The state of region {@code r} (dm-region-hash's). */
    public RegionState regionState(long r) {
        return set.hash.state(r);
    }

    /** Writes waiting for a region's recovery to end. */
    public int delayedWrites() {
        return worker.delayedWrites();
    }

    @Override
    public String toString() {
        return "mirror " + status(StatusType.TABLE);
    }
}
