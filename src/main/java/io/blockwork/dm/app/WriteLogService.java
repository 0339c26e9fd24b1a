package io.blockwork.dm.app;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.Counted;
import io.blockwork.engine.dm.targets.logwrites.LogFormat.Flag;
import io.blockwork.engine.dm.targets.logwrites.LogReplayer;
import io.blockwork.engine.dm.targets.logwrites.WriteLog;
import io.blockwork.engine.dm.targets.logwrites.WriteLogException;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.Claim;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.stereotype.Service;

/**
 * Write logs (the {@code log-writes} target's, in the kernel's format) on any block device: what
 * they hold, and a replay onto another device as it was at any entry, like the kernel tools'
 * {@code replay-log} ({@code --replay --limit N}, {@code --end-mark}, {@code --find --next-fua}).
 * Nothing here is configuration: nothing is stored.
 *
 * <p>A replay writes to its target, so the target must be a device nothing else uses; it is held
 * by {@code replay <log device>} while the replay runs (its other users are refused with
 * device-busy), and the log device is held too, so neither can go away meanwhile. The entries to
 * replay are read and checked first (damaged entries, writes past the target's end), so a refused
 * replay writes nothing. The replay itself runs outside the management lock: a long one does not
 * hold up other operations.
 */
@Service
public class WriteLogService {

    /** Most entries one page of {@link #entries} lists. */
    public static final int MAX_PAGE = 1000;

    private final DeviceRegistry registry;
    private final ManagementOperations management;

    public WriteLogService(DeviceRegistry registry, ManagementOperations management) {
        this.registry = registry;
        this.management = management;
    }

    /** A mark: its entry and name. */
    public record Mark(long entry, String name) {}

    /** What a log holds, counted by kind; a write with FUA counts as a write and a FUA. */
    public record Summary(String device, int sectorSize, long entries, long writes, long flushes, long fuas,
                          long discards, List<Mark> marks) {}

    /** Which entries a replay applies: from {@code startEntry}, then at most one of the three limits (none: to the end). */
    public record ReplayRequest(String target, Long startEntry, Long limit, Long throughEntry, String endMark) {}

    /** What a replay did; {@code lastEntry} is -1 if it replayed nothing. */
    public record ReplayOutcome(String log, String target, long firstEntry, long lastEntry, long entries, long writes,
                                long discards, long bytesWritten) {}

    public Summary summary(String device) {
        WriteLog log = open(device);
        Map<Flag, Long> counts = new EnumMap<>(Flag.class);
        long writes = 0;
        List<Mark> marks = new ArrayList<>();
        for (long i = 0; i < log.entryCount(); i++) {
            WriteLog.Entry e = entry(log, i);
            e.flags().forEach(f -> counts.merge(f, 1L, Long::sum));
            if (e.hasData()) {
                writes++;
            }
            if (e.is(Flag.MARK)) {
                marks.add(new Mark(i, e.mark()));
            }
        }
        return new Summary(device, log.sectorSize(), log.entryCount(), writes,
                counts.getOrDefault(Flag.FLUSH, 0L), counts.getOrDefault(Flag.FUA, 0L),
                counts.getOrDefault(Flag.DISCARD, 0L), List.copyOf(marks));
    }

    /**
     * Up to {@code limit} entries from {@code from} on; with {@code flags}, only those with any of
     * them ({@code replay-log --find --next-fua} is {@code flags=fua, limit=1}).
     */
    public List<WriteLog.Entry> entries(String device, long from, int limit, Set<Flag> flags) {
        if (from < 0) {
            throw ProblemException.invalid("from", "from must not be negative");
        }
        if (limit < 1 || limit > MAX_PAGE) {
            throw ProblemException.invalid("limit", "limit must be 1.." + MAX_PAGE);
        }
        WriteLog log = open(device);
        List<WriteLog.Entry> out = new ArrayList<>();
        for (long i = from; i < log.entryCount() && out.size() < limit; i++) {
            WriteLog.Entry e = entry(log, i);
            if (flags.isEmpty() || e.flags().stream().anyMatch(flags::contains)) {
                out.add(e);
            }
        }
        return out;
    }

    /** Rebuilds {@code request.target()} from the log on {@code device} as it was at the last entry chosen. */
    public ReplayOutcome replay(String device, ReplayRequest request) {
        String target = request.target();
        if (target == null || target.isBlank()) {
            throw ProblemException.invalid("target", "target names the device to replay onto");
        }
        if (target.equals(device)) {
            throw ProblemException.invalid("target", "the target is the log device itself");
        }
        int limits = (request.limit() == null ? 0 : 1) + (request.throughEntry() == null ? 0 : 1)
                + (request.endMark() == null ? 0 : 1);
        if (limits > 1) {
            throw ProblemException.invalid("limit", "give at most one of limit, throughEntry and endMark");
        }
        Holder holder = new Holder("replay", device);
        record Claimed(WriteLog log, BlockDevice onto, long first, long last) {}
        Claimed c = management.apply(changes -> {
            WriteLog log = open(device);
            BlockDevice onto = registry.device(target);
            if (builtOn(onto, log.device())) {
                throw ProblemException.invalid("target", target + " is built on " + device
                        + ": replaying onto it would overwrite the log being read");
            }
            long first = request.startEntry() == null ? 0 : request.startEntry();
            if (first < 0 || first > log.entryCount()) {
                throw ProblemException.invalid("startEntry", "startEntry must be 0.." + log.entryCount()
                        + " (the log has " + Counted.of(log.entryCount(), "entry", "entries") + ")");
            }
            long last = lastEntry(log, first, request);
            check(log, onto, first, last);
            try {
                registry.claimExclusive(target, holder);
            } catch (ProblemException e) {
                throw e.atField("target");
            }
            try {
                registry.claim(device, holder, Claim.READER);
            } catch (ProblemException e) {
                registry.release(target, holder);
                throw e;
            }
            return new Claimed(log, onto, first, last);
        });
        try {
            LogReplayer replayer = new LogReplayer(c.log, c.onto, c.first);
            if (c.last >= c.first) {
                replayer.replayThrough(c.last);
            }
            replayer.flush();
            LogReplayer.Result r = replayer.result();
            return new ReplayOutcome(device, target, c.first, c.last >= c.first ? c.last : -1, r.entries(), r.writes(),
                    r.discards(), r.bytesWritten());
        } catch (WriteLogException e) {
            throw new ProblemException(Problem.IO_ERROR, e.getMessage()).causedBy(e);
        } finally {
            management.run(changes -> {
                registry.release(target, holder);
                registry.release(device, holder);
            });
        }
    }

    /** The last entry a request asks for: by count, by index, by mark, or the log's last. */
    private static long lastEntry(WriteLog log, long first, ReplayRequest request) {
        if (request.limit() != null) {
            if (request.limit() < 0) {
                throw ProblemException.invalid("limit", "limit must not be negative");
            }
            return first + Math.min(request.limit(), log.entryCount() - first) - 1;
        }
        if (request.throughEntry() != null) {
            long through = request.throughEntry();
            if (through < first - 1 || through >= log.entryCount()) {
                throw ProblemException.invalid("throughEntry", "throughEntry must be " + (first - 1) + ".."
                        + (log.entryCount() - 1) + " (the log has " + Counted.of(log.entryCount(), "entry", "entries") + ")");
            }
            return through;
        }
        if (request.endMark() != null) {
            WriteLog.Entry mark;
            try {
                mark = log.findMark(request.endMark()).orElseThrow(() -> ProblemException.invalid("endMark",
                        "the log has no mark '" + request.endMark() + "'"));
            } catch (WriteLogException e) {
                throw noLog(e);
            }
            if (mark.index() < first) {
                throw ProblemException.invalid("endMark", "mark '" + request.endMark() + "' is entry " + mark.index()
                        + ", before startEntry " + first);
            }
            return mark.index();
        }
        return log.entryCount() - 1;
    }

    /** Reads every entry to replay: a damaged one, or one past the target's end, refuses the replay before it writes. */
    private static void check(WriteLog log, BlockDevice onto, long first, long last) {
        if (log.sectorSize() % onto.limits().logicalBlockSize() != 0) {
            throw ProblemException.invalid("target", onto.name() + " has " + onto.limits().logicalBlockSize()
                    + "-byte blocks; the log's sectors are " + log.sectorSize() + " bytes");
        }
        for (long i = first; i <= last; i++) {
            WriteLog.Entry e = entry(log, i);
            long end = (e.sector() + e.sectors()) * log.sectorSize();
            if ((e.hasData() || e.is(Flag.DISCARD)) && end > onto.sizeBytes()) {
                throw new ProblemException(Problem.OUT_OF_RANGE, "entry " + i + " writes up to byte " + end + ", past the end of "
                        + onto.name() + " (" + onto.sizeBytes() + " bytes)").atField("target")
                        .with("sizeBytes", onto.sizeBytes());
            }
        }
    }

    /** Whether {@code top} sends I/O to {@code device}, directly or through the devices below it. */
    private static boolean builtOn(BlockDevice top, BlockDevice device) {
        Deque<BlockDevice> todo = new ArrayDeque<>(top.lowerDevices());
        Set<BlockDevice> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        while (!todo.isEmpty()) {
            BlockDevice d = todo.pop();
            if (d == device) {
                return true;
            }
            if (seen.add(d)) {
                todo.addAll(d.lowerDevices());
            }
        }
        return false;
    }

    private WriteLog open(String device) {
        BlockDevice d = registry.device(device);
        try {
            return WriteLog.open(d);
        } catch (WriteLogException e) {
            throw noLog(e);
        }
    }

    private static WriteLog.Entry entry(WriteLog log, long i) {
        try {
            return log.entry(i);
        } catch (WriteLogException e) {
            throw noLog(e);
        }
    }

    private static ProblemException noLog(WriteLogException e) {
        return new ProblemException(Problem.NO_WRITE_LOG, e.getMessage()).causedBy(e);
    }
}
