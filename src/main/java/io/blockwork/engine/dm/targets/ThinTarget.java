package io.blockwork.engine.dm.targets;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.Extents;
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
import io.blockwork.engine.dm.thin.Pool;
import io.blockwork.engine.dm.thin.PoolMetadata;
import io.blockwork.engine.dm.thin.PoolMode;
import io.blockwork.engine.dm.thin.Thin;
import io.blockwork.engine.dm.thin.ThinException;
import java.util.List;

/**
 * dm-thin: a thin device of a pool, as large as its table says (the pool stores no size, so
 * virtual sizes may add up to more than the pool holds). Blocks are allocated on first write;
 * snapshots are thin devices too ({@code create_snap} on the pool).
 *
 * <pre>
 * thin &lt;pool dev&gt; &lt;dev id&gt;
 *   &lt;pool dev&gt;  the mapped device whose table is a thin-pool target
 *   &lt;dev id&gt;    the thin device's id in that pool (create_thin or create_snap made it)
 * </pre>
 *
 * Bios are split at data blocks. Status INFO: {@code <mapped sectors> <highest mapped sector|->},
 * or {@code Fail}. TABLE: {@code <pool dev> <dev id>}. The kernel's optional external origin is
 * not supported.
 */
public final class ThinTarget implements Target {

    public static final TargetType TYPE = new TargetType("thin", version(1, 23, 0), "<pool dev> <dev id>", 2, 3,
            ThinTarget::construct);

    private static final ArgBound DEV_ID = new ArgBound(0, PoolMetadata.MAX_DEV_ID, "Invalid device id");

    private final TargetContext ti;
    private final BlockDevice poolDevice;
    private final Pool pool;
    private final Thin thin;
    private final long blockSectors;

    private ThinTarget(TargetContext ti, BlockDevice poolDevice, Pool pool, Thin thin) {
        this.ti = ti;
        this.poolDevice = poolDevice;
        this.pool = pool;
        this.thin = thin;
        this.blockSectors = pool.metadata().dataBlockSectors();
    }

    static Target construct(TargetContext ti, TargetArgs args) throws TargetException {
        BlockDevice poolDevice = args.readDevice("Error opening pool device");
        long id = args.readUnsigned(DEV_ID);
        if (args.remaining() > 0) {
            throw new TargetException("Error opening origin device: external origins are not supported ('"
                    + args.shift() + "')");
        }
        Pool pool = ti.thin().pools().attachThin(poolDevice).orElseThrow(() -> new TargetException(
                "Couldn't find pool object: '" + poolDevice.name() + "' is not a live thin-pool device"));
        try {
            long blocks = (ti.lengthSectors() + pool.metadata().dataBlockSectors() - 1) / pool.metadata().dataBlockSectors();
            if (blocks > 1L << 40) {
                throw new ThinException("a thin device of " + ti.lengthSectors() + " sectors has more than 2^40 data blocks");
            }
            return new ThinTarget(ti, poolDevice, pool, pool.openThin(id, ti.device() == null ? poolDevice : ti.device()));
        } catch (ThinException e) {
            ti.thin().pools().detach(pool);
            throw new TargetException(e.getMessage());
        }
    }

    @Override
    public MapResult map(Bio bio) {
        return thin.map(bio);
    }

    @Override
    public EndIo endIo(Bio bio, IoStatus status) {
        thin.endIo(bio);
        return EndIo.done(status);
    }

    /**
     * From the mapping tree: an unmapped block reads as zeros, so it is a hole; a mapped one is data
     * (the data device is not asked: a provisioned block is written, or zeroed, in full). A pool
     * that failed reports data, as its reads fail. A write in flight may or may not be counted yet.
     */
    @Override
    public void allocation(long offset, long length, Extents out) {
        if (pool.mode() == PoolMode.FAIL) {
            out.add(length, Allocation.DATA);
            return;
        }
        long blockBytes = blockSectors << 9;
        long end = offset + length;
        for (long pos = offset; pos < end && !out.stopped(); ) {
            long block = pos / blockBytes;
            PoolMetadata.Run run = pool.metadata().runAt(thin.dev(), block, (end - 1) / blockBytes - block + 1);
            long runEnd = Math.min(end, (block + run.blocks()) * blockBytes);
            out.add(runEnd - pos, run.mapped() ? Allocation.DATA : Allocation.HOLE);
            pos = runEnd;
        }
    }

    @Override
    public long maxIoSectors() {
        return blockSectors;
    }

    @Override
    public String status(StatusType type) {
        return switch (type) {
            case INFO -> {
                if (pool.mode() == PoolMode.FAIL) {
                    yield "Fail";
                }
                long highest = pool.metadata().highestMapped(thin.dev());
                yield pool.metadata().mappedBlocks(thin.dev()) * blockSectors + " "
                        + (highest < 0 ? "-" : String.valueOf((highest + 1) * blockSectors - 1));
            }
            case TABLE -> poolDevice.name() + " " + thin.dev();
        };
    }

    @Override
    public List<DeviceRange> devices() {
        return List.of(new DeviceRange(poolDevice, 0, poolDevice.sizeBytes() >> 9));
    }

    @Override
    public void resume() {
        thin.resumed();
    }

    @Override
    public void postsuspend() {
        thin.suspended();
    }

    @Override
    public void close() {
        thin.close();
        ti.thin().pools().detach(pool);
    }

    public Thin thin() {
        return thin;
    }

    public Pool pool() {
        return pool;
    }
}
