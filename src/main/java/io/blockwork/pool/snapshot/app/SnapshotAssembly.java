package io.blockwork.pool.snapshot.app;

import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.snapshot.StoreType;
import io.blockwork.pool.store.PoolEntity;
import io.blockwork.pool.store.PoolRepository;
import io.blockwork.pool.snapshot.store.SnapshotEntity;
import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.pool.app.PoolExtents;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * Snapshots at start-up. A volume's snapshots come back with it, before anything else can use
 * it: the {@code -real} device, the origin (or the merge that was running), then every snapshot
 * over its COW device, whose persistent exception store is read back. A snapshot that cannot come
 * back keeps its name, failed with why; the volume comes up regardless.
 */
@Component
class SnapshotAssembly {

    private final SnapshotRecords records;
    private final PoolRepository pools;
    private final PoolExtents extents;
    private final SnapshotDevices devices;
    private final SnapshotHolds holds;
    private final SnapshotMerges merges;
    private final DeviceRegistry registry;

    SnapshotAssembly(SnapshotRecords records, PoolRepository pools, PoolExtents extents, SnapshotDevices devices,
                     SnapshotHolds holds, SnapshotMerges merges, DeviceRegistry registry) {
        this.records = records;
        this.pools = pools;
        this.extents = extents;
        this.devices = devices;
        this.holds = holds;
        this.merges = merges;
        this.registry = registry;
    }

    /** Rebuilds the snapshots of a volume whose (linear) device was just assembled. */
    void assemble(VolumeEntity volume) {
        List<SnapshotEntity> all = records.of(volume);
        if (all.isEmpty()) {
            return;
        }
        PoolEntity pool = pools.findById(volume.getPoolId()).orElseThrow();
        SnapshotEntity merge = all.stream().filter(SnapshotEntity::isMerging).findFirst().orElse(null);
        MappedDevice v;
        try {
            v = devices.liveVolume(volume.getName());
            MappedDevice real = devices.createReal(v);
            holds.register(real, SnapshotHolds.volumeHolder(volume.getName()));
            if (merge != null) {
                MappedDevice cow = devices.assembleCow(merge.getName(), pool.getDeviceName(), pool.getExtentSizeBytes(),
                        extents.segments(SnapshotRecords.owner(merge)));
                holds.register(cow, SnapshotHolds.holder(merge.getName()));
                devices.makeMerging(v, cow, merge.getChunkSectors());
                registry.reserve(merge.getName(), DeviceKind.SNAPSHOT, SnapshotHolds.mergingState(volume.getName()));
                merges.watch(merge.getName(), volume.getName(), merge.getMergeExceptions());
            } else {
                devices.makeOrigin(v);
            }
        } catch (RuntimeException e) {
            for (SnapshotEntity r : all) {
                holds.reserve(r.getName(), ObjectState.failed("volume " + volume.getName()
                        + " could not become its origin: " + e.getMessage()));
            }
            return;
        }
        for (SnapshotEntity r : all) {
            if (r != merge) {
                assemble(r, v, pool);
            }
        }
    }

    private void assemble(SnapshotEntity r, MappedDevice v, PoolEntity pool) {
        String name = r.getName();
        MappedDevice cow = null;
        try {
            if (!StoreType.PERSISTENT.code().equals(r.getStore())) {
                throw new IllegalStateException("it is transient: its exceptions were lost when the service stopped;"
                        + " delete it");
            }
            cow = devices.assembleCow(name, pool.getDeviceName(), pool.getExtentSizeBytes(),
                    extents.segments(SnapshotRecords.owner(r)));
            holds.register(cow, SnapshotHolds.holder(name));
            registry.register(name, DeviceKind.SNAPSHOT, devices.createSnapshot(v, name, cow, StoreType.PERSISTENT,
                    r.getChunkSectors()));
        } catch (RuntimeException e) {
            if (cow != null) {
                registry.release(cow.name(), SnapshotHolds.holder(name));
                registry.find(cow.name()).filter(RegisteredDevice::live).ifPresent(c -> registry.unregister(c.name()));
                cow.remove();
            }
            holds.reserve(name, ObjectState.failed(e.getMessage()));
        }
    }

    /** For the snapshot's restorable: was it assembled with its volume, and if not, why. */
    void requireAssembled(String name) {
        RegisteredDevice entry = registry.find(name).orElse(null);
        if (entry == null) {
            throw new IllegalStateException("its volume did not assemble it");
        }
        if (!entry.live() && !merges.isMerging(name)) {
            throw new IllegalStateException(entry.state().reason());
        }
    }

    /** For the snapshot's restorable: its volume is down, so it keeps its name with why. */
    void markUnavailable(String name, ObjectState state) {
        holds.reserve(name, state);
    }
}
