package io.blockwork.engine.dm.targets.logwrites;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.BlockIoException;
import io.blockwork.engine.block.Counted;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import java.lang.foreign.MemorySegment;

/**
 * Rebuilds a device from a write log, entry by entry (the kernel tools' {@code replay-log
 * --replay}): writes are written, discards zero their range, flushes, FUA and marks need nothing
 * more. Replaying entries 0..n onto a device that held what the logged device held when the log
 * started leaves it as the logged device was, durably, at entry n. It goes forward only: to go
 * back, replay again from entry 0 onto a fresh copy. A crash-consistency check replays to one
 * FLUSH or FUA entry after another, looking at the device at each ({@link #replayThrough}).
 */
public final class LogReplayer {

    /** The largest piece of an entry's data moved at once. */
    static final int CHUNK_BYTES = 1 << 20;

    /** What a replay did, for reports. */
    public record Result(long firstEntry, long entries, long writes, long discards, long bytesWritten) {}

    private final WriteLog log;
    private final BlockDevice target;
    private final long first;
    private long next;
    private long writes;
    private long discards;
    private long bytes;
    private byte[] buffer = new byte[0];

    /**
     * Replays onto {@code target}, starting at entry {@code start} (0 for a whole replay).
     *
     * @throws WriteLogException if {@code target}'s logical block size does not divide the log's sector size
     */
    public LogReplayer(WriteLog log, BlockDevice target, long start) {
        if (log.sectorSize() % target.limits().logicalBlockSize() != 0) {
            throw new WriteLogException("cannot replay a log of " + log.sectorSize() + "-byte sectors onto "
                    + target.name() + ", whose logical block size is " + target.limits().logicalBlockSize());
        }
        if (start < 0 || start > log.entryCount()) {
            throw new WriteLogException("the log has " + Counted.of(log.entryCount(), "entry", "entries") + "; it cannot start at entry " + start);
        }
        this.log = log;
        this.target = target;
        this.first = start;
        this.next = start;
    }

    /** Replays entries {@code first..last} of {@code log} onto {@code target} and flushes it. */
    public static Result replay(WriteLog log, BlockDevice target, long first, long last) {
        LogReplayer r = new LogReplayer(log, target, first);
        r.replayThrough(last);
        r.flush();
        return r.result();
    }

    /** The next entry this would replay. */
    public long next() {
        return next;
    }

    /**
     * Replays every entry up to and including {@code last} not replayed yet.
     *
     * @throws WriteLogException naming the entry, if one is damaged, lies past the target's end or fails
     */
    public void replayThrough(long last) {
        if (last >= log.entryCount()) {
            throw new WriteLogException("the log has " + Counted.of(log.entryCount(), "entry", "entries") + "; there is no entry " + last);
        }
        while (next <= last) {
            apply(log.entry(next));
            next++;
        }
    }

    /** Flushes the target, so that what was replayed is durable. */
    public void flush() {
        io(() -> SyncIo.flush(target), "flush");
    }

    public Result result() {
        return new Result(first, next - first, writes, discards, bytes);
    }

    private void apply(WriteLog.Entry e) {
        boolean discard = e.is(LogFormat.Flag.DISCARD);
        if (!e.hasData() && !discard) {
            return;
        }
        long at = e.sector() * log.sectorSize();
        long length = e.sectors() * log.sectorSize();
        if (at > target.sizeBytes() - length) {
            throw new WriteLogException("entry " + e.index() + " writes bytes " + at + ".." + (at + length) + ", past the end of "
                    + target.name() + " (" + target.sizeBytes() + " bytes)");
        }
        if (discard) {
            zero(e, at, length);
            discards++;
            return;
        }
        for (long done = 0; done < length; done += CHUNK_BYTES) {
            int n = (int) Math.min(CHUNK_BYTES, length - done);
            MemorySegment piece = piece(n);
            long from = done;
            io(() -> SyncIo.read(log.device(), e.logOffset() + log.sectorSize() + from, piece), "read of entry " + e.index());
            io(() -> SyncIo.write(target, at + from, piece, BioFlags.NONE), "write of entry " + e.index());
        }
        writes++;
        bytes += length;
    }

    /** Zeroes a discarded range; with zero buffers where the target has no write-zeroes. */
    private void zero(WriteLog.Entry e, long at, long length) {
        try {
            SyncIo.writeZeroes(target, at, length);
        } catch (BlockIoException ex) {
            if (ex.status() != IoStatus.NOT_SUPPORTED) {
                throw new WriteLogException("replaying entry " + e.index() + " onto " + target.name() + " failed: "
                        + ex.getMessage(), ex);
            }
            for (long done = 0; done < length; done += CHUNK_BYTES) {
                int n = (int) Math.min(CHUNK_BYTES, length - done);
                MemorySegment zeros = piece(n).fill((byte) 0);
                long from = done;
                io(() -> SyncIo.write(target, at + from, zeros, BioFlags.NONE), "zeroing for entry " + e.index());
            }
        }
    }

    private MemorySegment piece(int n) {
        if (buffer.length < n) {
            buffer = new byte[n];
        }
        return MemorySegment.ofArray(buffer).asSlice(0, n);
    }

    private void io(Runnable call, String what) {
        try {
            call.run();
        } catch (BlockIoException ex) {
            throw new WriteLogException("replay onto " + target.name() + ": " + what + " failed: " + ex.getMessage(), ex);
        }
    }
}
