package io.blockwork.pool.thin.app;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.thin.PoolMetadata;
import io.blockwork.pool.thin.store.ThinPoolEntity;
import io.blockwork.pool.thin.store.ThinVolumeEntity;
import io.blockwork.shared.consistency.EngineChanges;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.ForcedRemoval;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.pool.app.ByteUnits;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.pool.volume.app.VolumeChange;
import io.blockwork.pool.volume.app.VolumeResult;
import io.blockwork.pool.volume.app.VolumeView;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Service;

/**
 * Thin volumes, like LVM thin volumes: a virtual size, any size whatever the pool holds
 * (overprovisioning is allowed, and the pool shows it), rounded up to whole chunks; blocks are
 * allocated from the pool when first written. Each is {@code create_thin} on the pool, then a
 * block device of kind {@code volume} under its name ({@code thin <pool>-tpool <id>}), so the
 * data endpoints, statistics and NBD exports work on it.
 *
 * <p>Operations run in {@link ManagementOperations}. A pool message is committed to the pool's
 * metadata when it returns, before the database commits; if the database then rolls back, the
 * undo deletes the thin device again, and a start-up deletes any thin device id the database does
 * not know (a crash between the two), so the metadata and H2 agree again.
 */
@Service
public class ThinVolumeService {

    private final ThinPoolService pools;
    private final ThinVolumes volumes;
    private final ThinDevices devices;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final ForcedRemoval forcedRemoval;

    ThinVolumeService(ThinPoolService pools, ThinVolumes volumes, ThinDevices devices, DeviceRegistry registry,
                      ManagementOperations management, ForcedRemoval forcedRemoval) {
        this.pools = pools;
        this.volumes = volumes;
        this.devices = devices;
        this.registry = registry;
        this.management = management;
        this.forcedRemoval = forcedRemoval;
    }

    /* ---- create, read ---- */

    public VolumeResult create(String poolName, String name, Long sizeBytes) {
        return management.apply(changes -> {
            ThinPoolEntity pool = pools.local(poolName);
            DeviceNames.require(name, "name");
            long requested = checkChunks(checkSize(sizeBytes), pool);
            long size = Math.ceilDiv(requested, pool.getBlockSizeBytes()) * pool.getBlockSizeBytes();
            registry.requireFree(name);
            pools.active(poolName);
            long id = newThinId(pool);
            MappedDevice tpool = pools.poolDevice(pool);
            devices.message(tpool, "create_thin " + id);
            changes.undoOnRollback(() -> devices.message(tpool, "delete " + id));
            ThinVolumeEntity record = volumes.save(new ThinVolumeEntity(name, pool.getId(), id, size, null, null, now()));
            register(record, pool, DeviceKind.VOLUME, changes);
            return new VolumeResult(volumes.view(record, pool, true), requested);
        });
    }

    public List<VolumeView> list() {
        Map<Long, ThinPoolEntity> byId = new java.util.HashMap<>();
        List<VolumeView> out = new ArrayList<>();
        for (ThinVolumeEntity v : volumes.allVolumes()) {
            ThinPoolEntity pool = byId.computeIfAbsent(v.getThinPoolId(), id -> pools.byId(id));
            out.add(volumes.view(v, pool, false));
        }
        return out;
    }

    public List<VolumeView> list(String poolName) {
        ThinPoolEntity pool = pools.record(poolName);
        return volumes.volumes(pool).stream().map(v -> volumes.view(v, pool, false)).toList();
    }

    public VolumeView get(String poolName, String name) {
        ThinPoolEntity pool = pools.record(poolName);
        return volumes.view(volumes.volume(pool, name), pool, true);
    }

    /* ---- change ---- */

    /**
     * A new virtual size (online; a smaller one needs {@code allowShrink}, and the blocks past the
     * new end are unmapped first, so their space goes back to the pool) and/or a new name
     * (refused while the volume is exported or used).
     */
    public VolumeResult change(String poolName, String name, VolumeChange change) {
        return management.apply(changes -> {
            ThinPoolEntity pool = pools.local(poolName);
            ThinVolumeEntity record = volumes.volume(pool, name);
            if (change.sizeBytes() == null && change.deltaBytes() == null && change.newName() == null) {
                throw ProblemException.invalid("size", "nothing to change: give a new size and/or a new name");
            }
            long requested = record.getSizeBytes();
            if (change.sizeBytes() != null || change.deltaBytes() != null) {
                requested = checkChunks(change.sizeBytes() != null ? checkSize(change.sizeBytes())
                        : checkSize(record.getSizeBytes() + change.deltaBytes()), pool);
                resize(pool, record, requested, change.allowShrink(), changes);
            }
            if (change.newName() != null && !change.newName().equals(name)) {
                rename(record, change.newName(), changes);
            }
            return new VolumeResult(volumes.view(volumes.save(record), pool, true), requested);
        });
    }

    private void resize(ThinPoolEntity pool, ThinVolumeEntity record, long requested, boolean allowShrink,
                        EngineChanges changes) {
        long chunk = pool.getBlockSizeBytes();
        long size = Math.ceilDiv(requested, chunk) * chunk;
        long current = record.getSizeBytes();
        if (size == current) {
            return;
        }
        if (size < current && !allowShrink) {
            throw new ProblemException(Problem.SHRINK_NOT_CONFIRMED, "thin volume " + record.getName() + " would shrink"
                    + " from " + ByteUnits.human(current) + " to " + ByteUnits.human(size) + ", losing the data past the"
                    + " new end; send \"allowShrink\": true to confirm").atField("allowShrink")
                    .with("sizeBytes", current).with("newSizeBytes", size);
        }
        pools.active(pool.getName());
        MappedDevice d = devices.live(record.getName());
        if (size < current) {
            // Unmap what lies past the new end, so its blocks go back to the pool (lvreduce discards them too).
            PoolMetadata pmd = pools.engine(pool).orElseThrow().metadata();
            for (long vblock : pmd.mappings(record.getThinId()).keySet()) {
                if (vblock * chunk >= size) {
                    SyncIo.discard(d, vblock * chunk, Math.min(chunk, current - vblock * chunk));
                }
            }
        }
        String before = d.tableText();
        devices.resize(d, pool.getName(), record.getThinId(), size);
        changes.undoOnRollback(() -> devices.restore(d, before));
        record.setSizeBytes(size);
    }

    private void rename(ThinVolumeEntity record, String newName, EngineChanges changes) {
        String name = record.getName();
        DeviceNames.require(newName, "name");
        registry.renameUnheld("volume", name, newName, "name");
        changes.undoOnRollback(() -> registry.rename(newName, name));
        record.setName(newName);
    }

    /**
     * Deletes a thin volume: its blocks no snapshot shares go back to the pool. Refused with
     * device-busy while exported or used and with has-snapshots while it has snapshots, unless
     * {@code force}, which deletes its snapshots and exports with it.
     */
    public void delete(String poolName, String name, boolean force) {
        management.run(changes -> {
            ThinPoolEntity pool = pools.local(poolName);
            ThinVolumeEntity record = volumes.volume(pool, name);
            List<ThinVolumeEntity> snaps = volumes.snapshots(record);
            if (!snaps.isEmpty() && !force) {
                List<String> names = snaps.stream().map(ThinVolumeEntity::getName).toList();
                throw new ProblemException(Problem.HAS_SNAPSHOTS, "volume " + name + " has snapshots "
                        + String.join(", ", names) + "; delete them first, or delete with force=true, which deletes them"
                        + " too").with("snapshots", names);
            }
            for (ThinVolumeEntity s : snaps) {
                drop(pool, s, true, changes);
            }
            drop(pool, record, force, changes);
        });
    }

    /** Takes a thin device out: unregistered now; after the commit its device goes, then its id in the pool. */
    void drop(ThinPoolEntity pool, ThinVolumeEntity record, boolean force, EngineChanges changes) {
        drop(pool, record, record.getThinId(), force, changes);
    }

    /** As above, deleting thin device {@code id} from the pool (a merge gives the record's own to its volume). */
    void drop(ThinPoolEntity pool, ThinVolumeEntity record, long id, boolean force, EngineChanges changes) {
        String name = record.getName();
        MappedDevice d = null;
        if (registry.find(name).isPresent()) {
            if (force) {
                forcedRemoval.dropHolders(name, changes);
            }
            RegisteredDevice entry = registry.unregister(name);
            changes.undoOnRollback(() -> registry.reinstate(entry));
            d = entry.device(MappedDevice.class).orElse(null);
            if (d != null && d.state() == DeviceInfo.State.ACTIVE) {
                devices.suspendForRemoval(d);
                changes.undoOnRollback(d::resume);
            }
        }
        volumes.delete(record);
        MappedDevice gone = d;
        changes.afterCommit(() -> {
            if (gone != null) {
                gone.remove(force);
            }
            pools.engine(pool).ifPresent(p -> devices.message(pools.poolDevice(pool), "delete " + id));
        });
    }

    /* ---- for snapshots and assembly ---- */

    /** The next thin device id of {@code pool} (saved with the operation). */
    long newThinId(ThinPoolEntity pool) {
        if (pool.getNextThinId() > PoolMetadata.MAX_DEV_ID) {
            throw new ProblemException(Problem.CONFLICT, "thin pool " + pool.getName() + " has handed out all "
                    + (PoolMetadata.MAX_DEV_ID + 1) + " thin device ids");
        }
        long id = pool.takeThinId();
        pools.save(pool);
        return id;
    }

    /** Builds and registers the device of a thin volume or snapshot, undone on rollback. */
    MappedDevice register(ThinVolumeEntity record, ThinPoolEntity pool, DeviceKind kind, EngineChanges changes) {
        MappedDevice d = devices.createThin(record.getName(), pool.getName(), record.getThinId(), record.getSizeBytes());
        changes.undoOnRollback(d::remove);
        registry.register(record.getName(), kind, d);
        changes.undoOnRollback(() -> registry.unregister(record.getName()));
        return d;
    }

    /** Start-up: the device of a thin volume or snapshot; its pool is active. */
    void assemble(ThinVolumeEntity record) {
        ThinPoolEntity pool = pools.byId(record.getThinPoolId());
        MappedDevice d = devices.createThin(record.getName(), pool.getName(), record.getThinId(), record.getSizeBytes());
        try {
            registry.register(record.getName(), record.snapshot() ? DeviceKind.SNAPSHOT : DeviceKind.VOLUME, d);
        } catch (RuntimeException e) {
            d.remove();
            throw e;
        }
    }

    static long checkSize(Long bytes) {
        if (bytes == null) {
            throw ProblemException.invalid("size", "the volume's (virtual) size is required");
        }
        if (bytes <= 0 || bytes % 512 != 0) {
            throw ProblemException.invalid("size", "a volume's size is a positive whole number of 512-byte sectors, not "
                    + bytes + " bytes").with("sectorSize", 512);
        }
        return bytes;
    }

    /** dm-thin maps at most 2^40 chunks of a thin device (the table would not load). */
    private static long checkChunks(long bytes, ThinPoolEntity pool) {
        if (Math.ceilDiv(bytes, pool.getBlockSizeBytes()) > 1L << 40) {
            throw ProblemException.invalid("size", "a thin volume has at most 2^40 chunks (of "
                    + ByteUnits.human(pool.getBlockSizeBytes()) + " in pool " + pool.getName() + "), not "
                    + ByteUnits.human(bytes));
        }
        return bytes;
    }

    static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MICROS);
    }
}
