package io.blockwork.engine.dm.targets;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetType;
import java.util.List;

/**
 * dm-zero: reads return zeros, writes and discards are dropped, like /dev/zero. Useful for
 * sparse devices and tests.
 *
 * <pre>
 * zero          (no arguments)
 * </pre>
 *
 * Status: empty in both forms. It uses no device, so empty flushes have nothing to reach
 * ({@code numFlushBios} 0) and complete at once.
 */
public record ZeroTarget() implements Target {

    public static final TargetType TYPE =
            new TargetType("zero", version(1, 2, 0), "", 0, 0, (ti, args) -> new ZeroTarget());

    @Override
    public MapResult map(Bio bio) {
        if (bio.op() == BioOp.READ) {
            bio.data().fill((byte) 0);
        }
        return MapResult.OK;
    }

    /** Nothing is stored and reads return zeros. */
    @Override
    public void allocation(long offset, long length, Extents out) {
        out.add(length, Allocation.HOLE);
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
