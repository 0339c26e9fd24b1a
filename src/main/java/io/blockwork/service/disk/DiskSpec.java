package io.blockwork.service.disk;

import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.disk.CacheMode;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.service.device.DeviceNames;
import io.blockwork.service.problem.ProblemException;

/**
 * Everything that defines a disk, as stored and as the API takes it. The constructor checks it
 * and blames the request field at fault.
 */
public record DiskSpec(String name, DiskType type, long sizeBytes, int logicalBlockSize, CacheMode cache,
                       LatencyModel latency, int queueDepth, FlushMerging flushMerging) {

    public DiskSpec {
        DeviceNames.require(name, "name");
        if (type == null) {
            throw ProblemException.invalid("type", "type is required: memory, file or null");
        }
        if (logicalBlockSize != 512 && logicalBlockSize != 4096) {
            throw ProblemException.invalid("logicalBlockSize", "logical block size must be 512 or 4096");
        }
        if (sizeBytes <= 0) {
            throw ProblemException.invalid("size", "size must be positive");
        }
        if (sizeBytes % logicalBlockSize != 0) {
            throw ProblemException.invalid("size", "size " + sizeBytes
                    + " is not a multiple of the logical block size " + logicalBlockSize);
        }
        if (queueDepth < 0) {
            throw ProblemException.invalid("queueDepth", "queue depth must be 0 (no limit) or positive");
        }
        if (cache == null) {
            cache = CacheMode.WRITETHROUGH;
        }
        if (latency == null) {
            latency = LatencyModel.NONE;
        }
        if (flushMerging == null) {
            flushMerging = FlushMerging.MERGED;
        }
    }

    DiskConfig engineConfig() {
        return new DiskConfig(logicalBlockSize, cache, latency, queueDepth, flushMerging);
    }
}
