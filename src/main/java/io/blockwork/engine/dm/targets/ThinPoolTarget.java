package io.blockwork.engine.dm.targets;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.dm.ArgBound;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetArgs;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetException;
import io.blockwork.engine.dm.TargetType;
import io.blockwork.engine.dm.thin.Pool;
import io.blockwork.engine.dm.thin.PoolFeatures;
import io.blockwork.engine.dm.thin.ThinException;
import java.util.ArrayList;
import java.util.List;

/**
 * dm-thin-pool: ties a metadata device and a data device together; thin devices ({@link ThinTarget})
 * allocate their blocks from it. I/O to the pool device itself goes straight to the data device.
 *
 * <pre>
 * thin-pool &lt;metadata dev&gt; &lt;data dev&gt; &lt;data block size&gt; &lt;low water mark&gt; [&lt;#features&gt; &lt;feature&gt;...]
 *   &lt;data block size&gt;  sectors, 128 (64 KiB) to 2097152 (1 GiB), a multiple of 128
 *   &lt;low water mark&gt;   free data blocks at or below which an event is raised (once per resume)
 *   features           skip_block_zeroing, ignore_discard, no_discard_passdown, read_only, error_if_no_space
 * </pre>
 *
 * The target's length is the data area: {@code length / block size} blocks. Loading the same
 * table with a larger length (and resuming) grows the pool online; so does growing the metadata
 * device and resuming. Messages: {@code create_thin <id>}, {@code create_snap <id> <origin id>},
 * {@code delete <id>}, {@code set_transaction_id <current> <new>}, {@code reserve_metadata_snap},
 * {@code release_metadata_snap}; each is committed before it returns.
 *
 * <p>Status INFO: {@code <transaction id> <used>/<total metadata blocks> <used>/<total data
 * blocks> <held root|-> rw|ro|out_of_data_space [no_]discard_passdown|ignore_discard
 * error_if_no_space|queue_if_no_space needs_check|- <metadata low water mark>}, or {@code Fail}.
 * TABLE: the arguments, features as a count and names.
 */
public final class ThinPoolTarget implements Target {

    public static final TargetType TYPE = new TargetType("thin-pool", version(1, 23, 0),
            "<metadata dev> <data dev> <data block size> <low water mark> [<#features> <feature>...]", 4, 10,
            ThinPoolTarget::construct);

    static final long MIN_BLOCK_SECTORS = 128;
    static final long MAX_BLOCK_SECTORS = 2097152;
    private static final ArgBound BLOCK = new ArgBound(MIN_BLOCK_SECTORS, MAX_BLOCK_SECTORS, "Invalid block size");
    private static final ArgBound LOW_WATER = new ArgBound(0, Long.MAX_VALUE, "Invalid low water mark");
    private static final ArgBound FEATURES = new ArgBound(0, 5, "Invalid number of pool feature arguments");

    private final TargetContext ti;
    private final BlockDevice metadata;
    private final BlockDevice data;
    private final int blockSectors;
    private final long lowWater;
    private final PoolFeatures features;
    private final Pool pool;

    private ThinPoolTarget(TargetContext ti, BlockDevice metadata, BlockDevice data, int blockSectors, long lowWater,
                           PoolFeatures features, Pool pool) {
        this.ti = ti;
        this.metadata = metadata;
        this.data = data;
        this.blockSectors = blockSectors;
        this.lowWater = lowWater;
        this.features = features;
        this.pool = pool;
    }

    static Target construct(TargetContext ti, TargetArgs args) throws TargetException {
        BlockDevice metadata = args.readDevice("Error opening metadata block device");
        BlockDevice data = args.readDevice("Error getting data device");
        if (metadata == data) {
            throw new TargetException("Error setting metadata or data device: both are '" + data.name() + "'");
        }
        long block = args.readUnsigned(BLOCK);
        if (block % MIN_BLOCK_SECTORS != 0) {
            throw new TargetException("Invalid block size: " + block + " sectors is not a multiple of " + MIN_BLOCK_SECTORS);
        }
        long lowWater = args.readUnsigned(LOW_WATER);
        List<String> names = new ArrayList<>();
        if (args.remaining() > 0) {
            int n = args.readGroup(FEATURES);
            for (int i = 0; i < n; i++) {
                names.add(args.shift());
            }
            if (args.remaining() > 0) {
                throw new TargetException("Invalid argument count: " + args.remaining() + " arguments after the features");
            }
        }
        if (ti.device() == null) {
            throw new TargetException("a thin-pool target is built only for a mapped device (its pool is found through it)");
        }
        if (ti.lengthSectors() < block) {
            throw new TargetException("the pool's data area (" + ti.lengthSectors() + " sectors) holds no data block of "
                    + block + " sectors");
        }
        try {
            PoolFeatures features = PoolFeatures.parse(names);
            Pool pool = ti.thin().pools().attach(ti.device(), metadata, data, (int) block, ti.thin(), ti.timer());
            if (pool.metadata().dataBlockSectors() != block) {
                ti.thin().pools().detach(pool);
                throw new TargetException("the pool is open with " + pool.metadata().dataBlockSectors()
                        + "-sector blocks; its block size cannot change");
            }
            if (pool.boundOnce() && pool.features().discardEnabled() != features.discardEnabled()) {
                ti.thin().pools().detach(pool);
                throw new TargetException("Discard support cannot be disabled once enabled");
            }
            return new ThinPoolTarget(ti, metadata, data, (int) block, lowWater, features, pool);
        } catch (ThinException e) {
            throw new TargetException(e.getMessage());
        }
    }

    @Override
    public MapResult map(Bio bio) {
        return MapResult.remap(data, bio.offset());
    }

    @Override
    public MapResult mapFlush(Bio flush, int index) {
        return MapResult.remap(data, 0);
    }

    @Override
    public String status(StatusType type) {
        return switch (type) {
            case INFO -> pool.status();
            case TABLE -> metadata.name() + " " + data.name() + " " + blockSectors + " " + lowWater + " "
                    + String.join(" ", features.args());
        };
    }

    @Override
    public List<DeviceRange> devices() {
        return List.of(new DeviceRange(metadata, 0, metadata.sizeBytes() >> 9),
                new DeviceRange(data, 0, ti.lengthSectors()));
    }

    @Override
    public void preresume() throws TargetException {
        try {
            pool.bind(this, features, lowWater, ti.lengthSectors(), ti::triggerEvent);
        } catch (ThinException e) {
            throw new TargetException(e.getMessage());
        }
    }

    @Override
    public void resume() {
        pool.resume();
    }

    @Override
    public void presuspend(boolean noflush) {
        pool.presuspend();
    }

    @Override
    public void presuspendUndo() {
        pool.presuspendUndo();
    }

    @Override
    public void postsuspend() {
        pool.postsuspend();
    }

    @Override
    public String message(List<String> argv) throws TargetException {
        try {
            return pool.message(argv);
        } catch (ThinException e) {
            throw new TargetException(e.getMessage());
        }
    }

    @Override
    public void close() {
        pool.unbind(this);
        ti.thin().pools().detach(pool);
    }

    public Pool pool() {
        return pool;
    }
}
