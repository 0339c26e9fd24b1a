package io.blockwork.pool.snapshot.app;

import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.pool.snapshot.store.SnapshotEntity;
import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.shared.consistency.EngineChanges;
import io.blockwork.shared.device.DeviceRegistry;
import org.springframework.stereotype.Component;

/**
 * How a snapshot leaves its volume, for a delete and for a finished merge alike: the volume's
 * table goes back to {@code snapshot-origin} (other snapshots remain) or to its linear table (it
 * was the last: the {@code -real} device goes), the COW device is let go, the record and its
 * extents are gone, and the hidden devices are removed once the operation commits.
 */
@Component
class SnapshotTeardown {

    private final DeviceRegistry registry;
    private final SnapshotRecords records;
    private final SnapshotDevices devices;
    private final SnapshotHolds holds;

    SnapshotTeardown(DeviceRegistry registry, SnapshotRecords records, SnapshotDevices devices, SnapshotHolds holds) {
        this.registry = registry;
        this.records = records;
        this.devices = devices;
        this.holds = holds;
    }

    /** Takes {@code record} out of {@code volume}; its own device or reserved name is the caller's. */
    void takeOut(VolumeEntity volume, SnapshotEntity record, EngineChanges changes) {
        MappedDevice cow = holds.unregister(SnapshotDevices.cowName(record.getName()),
                SnapshotHolds.holder(record.getName()), changes);
        MappedDevice v = registry.find(volume.getName(), MappedDevice.class).orElse(null);
        MappedDevice real = v == null ? null : removeOrigin(volume, v, record, changes);
        records.forget(record);
        changes.afterCommit(() -> {
            for (MappedDevice d : new MappedDevice[] {cow, real}) {
                if (d != null) {
                    d.remove();
                }
            }
        });
    }

    /**
     * The volume after {@code record} goes: snapshot-origin if other snapshots remain, else linear
     * again, when its {@code -real} device is unregistered and returned for removal after the commit.
     */
    private MappedDevice removeOrigin(VolumeEntity volume, MappedDevice v, SnapshotEntity record,
                                      EngineChanges changes) {
        boolean last = records.of(volume).stream().allMatch(r -> r.getId().equals(record.getId()));
        String before = v.tableText();
        if (!last) {
            if (Snapshots.isMerging(v)) {
                devices.makeOrigin(v);
                changes.undoOnRollback(() -> devices.restore(v, before));
            }
            return null;
        }
        String realName = SnapshotDevices.realName(volume.getName());
        MappedDevice real = registry.find(realName, MappedDevice.class).orElse(null);
        if (real == null) {
            return null; // start-up never made it an origin
        }
        devices.makeLinear(v, real);
        changes.undoOnRollback(() -> devices.restore(v, before));
        return holds.unregister(realName, SnapshotHolds.volumeHolder(volume.getName()), changes);
    }
}
