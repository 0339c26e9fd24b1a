package io.blockwork.engine.dm.targets;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetArgs;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetException;
import io.blockwork.engine.dm.TargetType;
import java.util.List;

/**
 * dm-linear: the target's sectors map one to one onto an area of another device.
 *
 * <pre>
 * linear &lt;dev&gt; &lt;offset&gt;
 *   &lt;dev&gt;     the underlying device, by name
 *   &lt;offset&gt;  first sector of the area on &lt;dev&gt;
 * </pre>
 *
 * Status: INFO is empty; TABLE is {@code <dev> <offset>}. Flushes may bypass the map.
 *
 * @param dev the underlying device
 * @param start first sector on it
 * @param length sectors mapped (the target's length)
 */
public record LinearTarget(BlockDevice dev, long start, long length) implements Target {

    public static final TargetType TYPE =
            new TargetType("linear", version(1, 5, 0), "<dev> <offset>", 2, 2, LinearTarget::construct);

    static Target construct(TargetContext ti, TargetArgs args) throws TargetException {
        BlockDevice dev = args.readDevice("Device lookup failed");
        long start = args.readSector("Invalid device sector");
        return new LinearTarget(dev, start, ti.lengthSectors());
    }

    @Override
    public MapResult map(Bio bio) {
        return MapResult.remap(dev, (start << 9) + bio.offset());
    }

    @Override
    public void allocation(long offset, long len, Extents out) {
        dev.allocation((start << 9) + offset, len, out);
    }

    @Override
    public boolean flushBypassesMap() {
        return true;
    }

    @Override
    public String status(StatusType type) {
        return switch (type) {
            case INFO -> "";
            case TABLE -> dev.name() + " " + start;
        };
    }

    @Override
    public List<DeviceRange> devices() {
        return List.of(new DeviceRange(dev, start, length));
    }
}
