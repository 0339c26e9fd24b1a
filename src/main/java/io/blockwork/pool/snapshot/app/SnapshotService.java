package io.blockwork.pool.snapshot.app;

import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.snapshot.StoreType;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.pool.store.PoolEntity;
import io.blockwork.pool.snapshot.store.SnapshotEntity;
import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.shared.consistency.EngineChanges;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.ForcedRemoval;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.pool.app.ByteUnits;
import io.blockwork.pool.app.PoolExtents;
import io.blockwork.pool.app.PoolService;
import io.blockwork.pool.app.Segment;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.pool.volume.app.VolumeSnapshots;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.springframework.stereotype.Service;

/**
 * Snapshots of volumes, like LVM snapshots: copy-on-write space allocated from the volume's pool,
 * and the devices {@link SnapshotDevices} describes. The volume keeps its name and stays writable;
 * the first snapshot moves its linear table to {@code <volume>-real}, the last one gone moves it
 * back ({@link SnapshotTeardown}). Merges are {@link SnapshotMerges}', start-up
 * {@link SnapshotAssembly}'s.
 *
 * <p>Every change runs in {@link ManagementOperations}, engine steps with their undo. A volume
 * with snapshots cannot be resized or renamed ({@link Problem#HAS_SNAPSHOTS}); deleting it needs
 * force, which deletes its snapshots first ({@link #dropAll}).
 */
@Service
public class SnapshotService implements VolumeSnapshots {

    private final PoolService pools;
    private final PoolExtents extents;
    private final SnapshotRecords records;
    private final SnapshotDevices devices;
    private final SnapshotHolds holds;
    private final SnapshotTeardown teardown;
    private final SnapshotAssembly assembly;
    private final SnapshotViews views;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final ForcedRemoval forcedRemoval;

    SnapshotService(PoolService pools, PoolExtents extents, SnapshotRecords records, SnapshotDevices devices,
                    SnapshotHolds holds, SnapshotTeardown teardown, SnapshotAssembly assembly, SnapshotViews views,
                    DeviceRegistry registry, ManagementOperations management, ForcedRemoval forcedRemoval) {
        this.pools = pools;
        this.extents = extents;
        this.records = records;
        this.devices = devices;
        this.holds = holds;
        this.teardown = teardown;
        this.assembly = assembly;
        this.views = views;
        this.registry = registry;
        this.management = management;
        this.forcedRemoval = forcedRemoval;
    }

    /* ---- create, read ---- */

    public SnapshotView create(String poolName, String volumeName, NewSnapshot s) {
        return management.apply(changes -> {
            PoolEntity pool = pools.local(poolName);
            VolumeEntity volume = pools.volume(pool, volumeName);
            String name = DeviceNames.require(s.name(), "name");
            long es = pool.getExtentSizeBytes();
            long chunkSectors = s.chunkSectors();
            long count = Math.ceilDiv(s.checkedSize(), es);
            if (count * es < 3 * (chunkSectors << 9)) {
                throw ProblemException.invalid("size", "a snapshot needs room for a header, a metadata area and at"
                        + " least one chunk: " + ByteUnits.human(3 * (chunkSectors << 9)) + " with chunks of "
                        + ByteUnits.human(chunkSectors << 9) + ", not " + ByteUnits.human(count * es));
            }
            StoreType store = s.persistent() == null || s.persistent() ? StoreType.PERSISTENT : StoreType.TRANSIENT;
            registry.requireFree(name);
            requireFreeDerived(SnapshotDevices.cowName(name), "name");
            records.merging(volume).ifPresent(m -> {
                throw new ProblemException(Problem.INVALID_STATE, "volume " + volumeName + " is merging snapshot "
                        + m.getName() + "; take new snapshots once the merge is done").with("merging", m.getName());
            });
            pools.active(poolName);
            MappedDevice v = devices.liveVolume(volumeName);
            boolean origin = Snapshots.isOrigin(v);
            if (!origin) {
                requireFreeDerived(SnapshotDevices.realName(volumeName), "volume");
            }
            SnapshotEntity record = records.save(new SnapshotEntity(name, volume.getId(), count, chunkSectors,
                    store.code(),
                    // the database keeps microseconds; truncate so the create answer matches later reads
                    Instant.now().truncatedTo(ChronoUnit.MICROS)));
            List<Segment> segments = extents.allocate(pool, SnapshotRecords.owner(record), count);
            MappedDevice cow = devices.createCow(name, pool.getDeviceName(), es, segments, chunkSectors);
            changes.undoOnRollback(cow::remove);
            holds.register(cow, SnapshotHolds.holder(name), changes);
            if (!origin) {
                MappedDevice real = devices.createReal(v);
                changes.undoOnRollback(real::remove);
                holds.register(real, SnapshotHolds.volumeHolder(volumeName), changes);
                String before = v.tableText();
                devices.makeOrigin(v);
                changes.undoOnRollback(() -> devices.restore(v, before));
            }
            MappedDevice snap;
            try {
                snap = devices.createSnapshot(v, name, cow, store, chunkSectors);
            } catch (DmException e) {
                throw new ProblemException(Problem.CONFLICT, e.getMessage()).causedBy(e);
            }
            changes.undoOnRollback(snap::remove);
            registry.register(name, DeviceKind.SNAPSHOT, snap);
            changes.undoOnRollback(() -> registry.unregister(name));
            return views.view(record, volume, pool);
        });
    }

    public List<SnapshotView> list(String poolName, String volumeName) {
        PoolEntity pool = pools.record(poolName);
        VolumeEntity volume = pools.volume(pool, volumeName);
        return records.of(volume).stream().map(r -> views.view(r, volume, pool)).toList();
    }

    public SnapshotView get(String poolName, String volumeName, String name) {
        PoolEntity pool = pools.record(poolName);
        VolumeEntity volume = pools.volume(pool, volumeName);
        return views.view(records.of(volume, name), volume, pool);
    }

    @Override
    public List<String> names(VolumeEntity volume) {
        return records.names(volume);
    }

    /* ---- delete ---- */

    /**
     * Deletes a snapshot and frees its COW space; the volume goes back to linear with its last
     * snapshot. Refused with device-busy while exported, unless {@code force}.
     */
    public void delete(String poolName, String volumeName, String name, boolean force) {
        management.run(changes -> {
            PoolEntity pool = pools.local(poolName);
            VolumeEntity volume = pools.volume(pool, volumeName);
            drop(volume, records.of(volume, name), force, changes);
        });
    }

    @Override
    public void dropAll(VolumeEntity volume, EngineChanges changes) {
        for (SnapshotEntity r : records.of(volume)) {
            drop(volume, r, true, changes);
        }
    }

    private void drop(VolumeEntity volume, SnapshotEntity record, boolean force, EngineChanges changes) {
        String name = record.getName();
        if (record.isMerging()) {
            throw new ProblemException(Problem.INVALID_STATE, "snapshot " + name + " is merging into volume "
                    + volume.getName() + "; it goes away by itself when the merge is done").with("merging", name);
        }
        MappedDevice snap = null;
        if (registry.find(name).isPresent()) {
            if (force) {
                forcedRemoval.dropHolders(name, changes);
            }
            RegisteredDevice entry = registry.unregister(name);
            changes.undoOnRollback(() -> registry.reinstate(entry));
            snap = entry.device(MappedDevice.class).orElse(null);
            if (snap != null && snap.state() == DeviceInfo.State.ACTIVE) {
                devices.suspendForRemoval(snap);
                changes.undoOnRollback(snap::resume);
            }
        }
        if (snap != null) {
            MappedDevice gone = snap;
            changes.afterCommit(() -> gone.remove(force)); // before its COW device and origin go
        }
        teardown.takeOut(volume, record, changes);
    }

    /* ---- start-up ---- */

    @Override
    public void assemble(VolumeEntity volume) {
        assembly.assemble(volume);
    }

    private void requireFreeDerived(String derived, String field) {
        try {
            DeviceNames.require(derived, field);
            registry.requireFree(derived);
        } catch (ProblemException e) {
            throw e.atField(field);
        }
    }
}
