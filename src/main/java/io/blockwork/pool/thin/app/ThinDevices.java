package io.blockwork.pool.thin.app;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.TableSpec;
import io.blockwork.engine.dm.targets.Thins;
import io.blockwork.engine.dm.thin.Pool;
import io.blockwork.engine.dm.thin.PoolFeatures;
import io.blockwork.shared.device.MappedDevices;
import io.blockwork.pool.app.Segment;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * The mapped devices of thin pools, laid out as LVM lays them out: a pool is the hidden device
 * {@code <pool>-tpool} with a {@code thin-pool} table over its metadata and data devices (the hidden
 * linear {@code <pool>-tmeta} and {@code <pool>-tdata} when they are carved from a classic pool);
 * each thin volume or snapshot is a device of its own name with the table
 * {@code thin <pool>-tpool <id>}. Built with the service's one {@code DmConfig}, so thin targets
 * find their pool through its registry.
 */
@Component
class ThinDevices {

    private final MappedDevices devices;

    ThinDevices(MappedDevices devices) {
        this.devices = devices;
    }

    static String poolDevice(String pool) {
        return pool + "-tpool";
    }

    static String dataDevice(String pool) {
        return pool + "-tdata";
    }

    static String metadataDevice(String pool) {
        return pool + "-tmeta";
    }

    /** A hidden linear device over extents of a classic pool ({@code -tdata}, {@code -tmeta}). */
    MappedDevice carve(String name, String parentDevice, long extentSizeBytes, List<Segment> segments) {
        return devices.create(name, Segment.table(parentDevice, extentSizeBytes, segments));
    }

    /** A carved device's larger table, online. */
    void reloadCarved(MappedDevice d, String parentDevice, long extentSizeBytes, List<Segment> segments) {
        devices.swap(d, Segment.table(parentDevice, extentSizeBytes, segments));
    }

    /** Zeroes the metadata device's first block, so the pool formats it (as lvm wipes a new pool's metadata). */
    void wipeMetadata(BlockDevice metadata) {
        SyncIo.write(metadata, 0, MemorySegment.ofArray(new byte[4096]), BioFlags.FUA);
    }

    /**
     * The pool device; its metadata is read (or formatted) as its table loads. A refusal (metadata
     * that is not a pool's, a data device too small) is a conflict naming why.
     */
    MappedDevice createPool(String pool, String metadata, String data, long dataBlocks, long blockSectors,
                            long lowWaterBlocks, PoolFeatures features) {
        try {
            return MappedDevice.create(poolDevice(pool), null, Thins.poolTable(metadata, data, dataBlocks * blockSectors,
                    blockSectors, lowWaterBlocks, features), devices.lookup(), devices.config());
        } catch (TableException e) {
            throw new ProblemException(Problem.CONFLICT, "thin pool " + pool + " cannot start: " + e.reason())
                    .causedBy(e);
        }
    }

    /** Loads the pool's table again with {@code dataBlocks} (online growth of data and metadata). */
    void reloadPool(MappedDevice tpool, String metadata, String data, long dataBlocks, long blockSectors,
                    long lowWaterBlocks, PoolFeatures features) {
        devices.swap(tpool, TableSpec.parse(Thins.poolTable(metadata, data, dataBlocks * blockSectors, blockSectors,
                lowWaterBlocks, features)));
    }

    /** A thin device {@code name} of the pool; refused (its id unknown to the pool) as a conflict. */
    MappedDevice createThin(String name, String pool, long id, long sizeBytes) {
        try {
            return MappedDevice.create(name, null, Thins.thinTable(poolDevice(pool), id, sizeBytes >> 9),
                    devices.lookup(), devices.config());
        } catch (TableException e) {
            throw new ProblemException(Problem.CONFLICT, "thin device " + name + " cannot start: " + e.reason())
                    .causedBy(e);
        }
    }

    /** A new virtual size, online. */
    void resize(MappedDevice thin, String pool, long id, long sizeBytes) {
        devices.swap(thin, TableSpec.parse(Thins.thinTable(poolDevice(pool), id, sizeBytes >> 9)));
    }

    /** Sends {@code dmsetup message <pool> 0 <text>}; the pool commits it before this returns. */
    void message(MappedDevice tpool, String text) {
        try {
            tpool.message(0, text);
        } catch (DmException e) {
            throw new ProblemException(Problem.MESSAGE_REFUSED, "thin pool " + tpool.name() + " refused '" + text + "': "
                    + e.getMessage()).causedBy(e);
        }
    }

    /** {@code create_snap}, with the origin's device (if active) suspended across it. */
    void snapshot(MappedDevice tpool, MappedDevice origin, long originId, long id) {
        try {
            Thins.snapshot(tpool, origin, originId, id, devices.suspendTimeout());
        } catch (DmException e) {
            throw new ProblemException(Problem.CONFLICT, "cannot snapshot thin device " + originId + ": "
                    + e.getMessage()).causedBy(e);
        }
    }

    Optional<Pool> pool(MappedDevice tpool) {
        return Thins.pool(tpool);
    }

    void suspendForRemoval(MappedDevice d) {
        devices.suspendForRemoval(d);
    }

    void restore(MappedDevice d, String tableText) {
        devices.restore(d, tableText);
    }

    MappedDevice live(String name) {
        return devices.live(name);
    }
}
