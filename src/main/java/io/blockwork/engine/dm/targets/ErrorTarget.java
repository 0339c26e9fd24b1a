package io.blockwork.engine.dm.targets;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetType;
import java.util.List;

/**
 * dm-error: every read, write, discard and write-zeroes fails with an I/O error. A forced remove
 * swaps a table of this target in so that users of the device fail instead of hanging.
 *
 * <pre>
 * error         (no arguments)
 * </pre>
 *
 * Status: empty in both forms. As in the kernel it takes no flush bios, so an empty flush of an
 * all-error table completes successfully: there is no cache behind it that could lose anything.
 */
public record ErrorTarget() implements Target {

    public static final TargetType TYPE =
            new TargetType("error", version(1, 7, 0), "", 0, 0, (ti, args) -> new ErrorTarget());

    @Override
    public MapResult map(Bio bio) {
        return MapResult.IO_ERROR;
    }

    @Override
    public int numFlushBios() {
        return 0;
    }

    @Override
    public String status(StatusType type) {
        return "";
    }

    @Override
    public List<DeviceRange> devices() {
        return List.of();
    }
}
