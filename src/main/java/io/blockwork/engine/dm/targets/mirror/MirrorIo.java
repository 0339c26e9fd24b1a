package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Synchronous I/O for the mirror worker's own metadata work (log reads and writes, leg flushes
 * before the log records regions clean). It goes out through the worker's batch dispatch, so with
 * strategy {@code timer} it waits in the devices' queue plugs like everything else the worker sends.
 */
@FunctionalInterface
interface MirrorIo {

    /** Submits every request at once, waits for all, and returns their statuses in order. */
    List<IoStatus> execute(List<Request> requests);

    /** One request; {@code data} is null for a flush. */
    record Request(BlockDevice device, BioOp op, long offset, MemorySegment data, BioFlags flags) {

        static Request read(BlockDevice device, long offset, MemorySegment into) {
            return new Request(device, BioOp.READ, offset, into, BioFlags.NONE);
        }

        /** Log writes are FUA: the log is durable when the write completes, with no flush to follow. */
        static Request durableWrite(BlockDevice device, long offset, MemorySegment from) {
            return new Request(device, BioOp.WRITE, offset, from, BioFlags.FUA);
        }

        static Request flush(BlockDevice device) {
            return new Request(device, BioOp.FLUSH, 0, null, BioFlags.NONE);
        }

        long length() {
            return data == null ? 0 : data.byteSize();
        }
    }

    /** True if every status is OK. */
    static boolean allOk(List<IoStatus> statuses) {
        return statuses.stream().allMatch(IoStatus::ok);
    }
}
