package io.blockwork.pool.thin.app;

import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.pool.thin.store.ThinPoolEntity;
import io.blockwork.pool.thin.store.ThinVolumeEntity;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.pool.snapshot.app.SnapshotView;
import java.util.List;
import org.springframework.stereotype.Service;

/**
 * Snapshots of thin volumes, like LVM thin snapshots, through the same endpoints as classic ones:
 * {@code create_snap} on the pool, with the source's device suspended for the instant it takes
 * (O(1): the source's mapping tree is shared, nothing is copied), then a block device of kind
 * {@code snapshot} under its name. A snapshot needs no space of its own: blocks are shared until
 * either side writes one, and a snapshot can itself be snapshotted ({@code source}). Deleting one
 * gives back the blocks only it held. Merging (rollback) is instant: the volume's device takes the
 * snapshot's thin device, and the volume's old one is deleted.
 */
@Service
public class ThinSnapshotService {

    private final ThinPoolService pools;
    private final ThinVolumes volumes;
    private final ThinVolumeService thinVolumes;
    private final ThinDevices devices;
    private final DeviceRegistry registry;
    private final ManagementOperations management;

    ThinSnapshotService(ThinPoolService pools, ThinVolumes volumes, ThinVolumeService thinVolumes, ThinDevices devices,
                        DeviceRegistry registry, ManagementOperations management) {
        this.pools = pools;
        this.volumes = volumes;
        this.thinVolumes = thinVolumes;
        this.devices = devices;
        this.registry = registry;
        this.management = management;
    }

    /**
     * Takes snapshot {@code name} of volume {@code volumeName}, or of its snapshot {@code source}
     * when given. A COW size, if the request has one, is not needed and not used.
     */
    public SnapshotView create(String poolName, String volumeName, String name, String source) {
        return management.apply(changes -> {
            ThinPoolEntity pool = pools.local(poolName);
            ThinVolumeEntity volume = volumes.volume(pool, volumeName);
            DeviceNames.require(name, "name");
            ThinVolumeEntity from = source == null || source.equals(volumeName) ? volume : sourceSnapshot(volume, source);
            registry.requireFree(name);
            pools.active(poolName);
            MappedDevice origin = registry.find(from.getName(), MappedDevice.class).orElse(null);
            long id = thinVolumes.newThinId(pool);
            MappedDevice tpool = pools.poolDevice(pool);
            devices.snapshot(tpool, origin, from.getThinId(), id);
            changes.undoOnRollback(() -> devices.message(tpool, "delete " + id));
            ThinVolumeEntity record = volumes.save(new ThinVolumeEntity(name, pool.getId(), id, from.getSizeBytes(),
                    volume.getId(), from.getName(), ThinVolumeService.now()));
            thinVolumes.register(record, pool, DeviceKind.SNAPSHOT, changes);
            return volumes.snapshotView(record, volume, pool, null);
        });
    }

    private ThinVolumeEntity sourceSnapshot(ThinVolumeEntity volume, String source) {
        try {
            return volumes.snapshot(volume, source);
        } catch (ProblemException e) {
            throw ProblemException.invalid("source", "'" + source + "' is neither volume " + volume.getName()
                    + " nor one of its snapshots");
        }
    }

    public List<SnapshotView> list(String poolName, String volumeName) {
        ThinPoolEntity pool = pools.record(poolName);
        ThinVolumeEntity volume = volumes.volume(pool, volumeName);
        return volumes.snapshots(volume).stream().map(s -> volumes.snapshotView(s, volume, pool, null)).toList();
    }

    public SnapshotView get(String poolName, String volumeName, String name) {
        ThinPoolEntity pool = pools.record(poolName);
        ThinVolumeEntity volume = volumes.volume(pool, volumeName);
        return volumes.snapshotView(volumes.snapshot(volume, name), volume, pool, null);
    }

    /** Deletes a snapshot; refused with device-busy while exported, unless {@code force}. */
    public void delete(String poolName, String volumeName, String name, boolean force) {
        management.run(changes -> {
            ThinPoolEntity pool = pools.local(poolName);
            ThinVolumeEntity volume = volumes.volume(pool, volumeName);
            thinVolumes.drop(pool, volumes.snapshot(volume, name), force, changes);
        });
    }

    /**
     * Rolls the volume back to the snapshot at once: the volume's device swaps its table to the
     * snapshot's thin device (online), the snapshot's device goes, and the volume's old thin device
     * is deleted. Refused with device-busy while the snapshot is exported or used.
     */
    public SnapshotView merge(String poolName, String volumeName, String name) {
        return management.apply(changes -> {
            ThinPoolEntity pool = pools.local(poolName);
            ThinVolumeEntity volume = volumes.volume(pool, volumeName);
            ThinVolumeEntity snap = volumes.snapshot(volume, name);
            pools.active(poolName);
            RegisteredDevice entry = registry.find(name).orElse(null);
            if (entry != null && !entry.holders().isEmpty()) {
                throw new ProblemException(Problem.DEVICE_BUSY, "snapshot " + name + " is in use by "
                        + entry.holders() + "; remove that first").with("holders",
                        entry.holders().stream().map(Object::toString).sorted().toList());
            }
            SnapshotView merged = volumes.snapshotView(snap, volume, pool, "merged");
            MappedDevice v = devices.live(volume.getName());
            String before = v.tableText();
            long oldId = volume.getThinId();
            devices.resize(v, pool.getName(), snap.getThinId(), volume.getSizeBytes());
            changes.undoOnRollback(() -> devices.restore(v, before));
            long snapId = snap.getThinId();
            thinVolumes.drop(pool, snap, oldId, false, changes); // its record goes; the volume's old device with it
            volume.setThinId(snapId);
            volumes.save(volume);
            return merged;
        });
    }
}
