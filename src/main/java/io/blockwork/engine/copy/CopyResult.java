package io.blockwork.engine.copy;

import io.blockwork.engine.block.IoStatus;
import java.util.List;

/**
 * How a copy ended, like kcopyd's read error and write error bitmask.
 *
 * @param read the source read's status (OK for a zeroing job)
 * @param writes one status per target, in the order the targets were given
 */
public record CopyResult(IoStatus read, List<IoStatus> writes) {

    public boolean ok() {
        return read.ok() && writes.stream().allMatch(IoStatus::ok);
    }

    /** Indexes of the targets whose writes failed. */
    public List<Integer> failedTargets() {
        return java.util.stream.IntStream.range(0, writes.size()).filter(i -> !writes.get(i).ok()).boxed().toList();
    }
}
