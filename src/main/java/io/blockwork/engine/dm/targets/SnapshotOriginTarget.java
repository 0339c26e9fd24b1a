package io.blockwork.engine.dm.targets;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetArgs;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetException;
import io.blockwork.engine.dm.TargetType;
import io.blockwork.engine.dm.snapshot.Origin;
import io.blockwork.engine.dm.snapshot.Origins;
import java.util.List;

/**
 * dm-snapshot's origin: the device people keep using while snapshots of it exist. Reads pass
 * straight through; a write first makes every active snapshot of the origin keep the old content
 * of the chunks it touches, waiting for the copies it starts (see
 * {@link io.blockwork.engine.dm.snapshot.Origin#write}).
 *
 * <pre>
 * snapshot-origin &lt;origin&gt;
 *   &lt;origin&gt;  the device holding the data (the snapshots name the same device)
 * </pre>
 *
 * Status: INFO is empty; TABLE is {@code <origin>}. Flushes go straight to the origin device.
 * The origin is looked up in the engine's origin registry ({@code DmConfig.snapshots().origins()})
 * by device, so snapshots created before or after this target find it. Take snapshots with the
 * origin's mapped device suspended, as lvm does, so that no write is in flight across the moment
 * the snapshot begins.
 */
public final class SnapshotOriginTarget implements Target {

    public static final TargetType TYPE = new TargetType("snapshot-origin", version(1, 9, 0), "<origin>", 1, 1,
            SnapshotOriginTarget::construct);

    private final Origins registry;
    private final Origin origin;
    private final BlockDevice dev;
    private final long length;

    private SnapshotOriginTarget(Origins registry, Origin origin, long length) {
        this.registry = registry;
        this.origin = origin;
        this.dev = origin.device();
        this.length = length;
    }

    static Target construct(TargetContext ti, TargetArgs args) throws TargetException {
        BlockDevice dev = args.readDevice("Cannot get target device");
        Origins registry = ti.snapshots().origins();
        return new SnapshotOriginTarget(registry, registry.attachOrigin(dev), ti.lengthSectors());
    }

    @Override
    public MapResult map(Bio bio) {
        if (!bio.op().isWrite()) {
            return MapResult.remap(dev, bio.offset());
        }
        return CowTarget.mapResult(origin.write(bio), dev, null);
    }

    @Override
    public boolean flushBypassesMap() {
        return true;
    }

    @Override
    public String status(StatusType type) {
        return switch (type) {
            case INFO -> "";
            case TABLE -> dev.name();
        };
    }

    @Override
    public List<DeviceRange> devices() {
        return List.of(new DeviceRange(dev, 0, length));
    }

    /** Reads pass straight to the origin device, so it answers. */
    @Override
    public void allocation(long offset, long length, Extents out) {
        dev.allocation(offset, length, out);
    }

    /** The registry entry: the snapshots of this origin. */
    public Origin origin() {
        return origin;
    }

    @Override
    public void close() {
        registry.detachOrigin(origin);
    }
}
