package io.blockwork.pool.snapshot.app;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.TableSpec;
import io.blockwork.engine.dm.snapshot.StoreType;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.shared.device.MappedDevices;
import io.blockwork.pool.app.Segment;
import java.lang.foreign.Arena;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * The mapped devices of volume snapshots, laid out as LVM lays them out: while a volume has
 * snapshots its device {@code <volume>} is a {@code snapshot-origin} over a hidden
 * {@code <volume>-real} that has the volume's linear table; each snapshot is a device
 * {@code <snapshot>} with the table {@code snapshot <volume>-real <snapshot>-cow P <chunk>} over
 * a hidden linear {@code <snapshot>-cow} on extents of the pool. A merge (rollback) loads
 * {@code snapshot-merge <volume>-real <snapshot>-cow P <chunk>} into the volume's device.
 *
 * <p>Every device is built with the service's one {@code DmConfig} ({@link MappedDevices}), so
 * snapshot targets find their origin through its registry, whichever feature made the origin.
 */
@Component
class SnapshotDevices {

    private final MappedDevices devices;

    SnapshotDevices(MappedDevices devices) {
        this.devices = devices;
    }

    static String realName(String volume) {
        return volume + "-real";
    }

    static String cowName(String snapshot) {
        return snapshot + "-cow";
    }

    /** The live mapped device of volume {@code name}. */
    MappedDevice liveVolume(String name) {
        return devices.live(name);
    }

    /** The hidden device of the volume's data, with its linear table: a copy of the volume's table now. */
    MappedDevice createReal(MappedDevice volume) {
        return devices.create(realName(volume.name()), TableSpec.parse(volume.tableText()));
    }

    /**
     * A new snapshot's COW device: linear over its extents, with its first chunk (the exception
     * store's header) zeroed, as lvm zeroes a new COW, so that a header left on these extents by
     * an earlier snapshot is not taken for this one's.
     */
    MappedDevice createCow(String snapshot, String poolDevice, long extentSizeBytes, List<Segment> segments,
                           long chunkSectors) {
        MappedDevice cow = assembleCow(snapshot, poolDevice, extentSizeBytes, segments);
        try (Arena arena = Arena.ofShared()) {
            SyncIo.write(cow, 0, arena.allocate(chunkSectors << 9), BioFlags.FUA);
        } catch (RuntimeException e) {
            cow.remove();
            throw e;
        }
        return cow;
    }

    /** A COW device at start-up: its extents as they are. */
    MappedDevice assembleCow(String snapshot, String poolDevice, long extentSizeBytes, List<Segment> segments) {
        return devices.create(cowName(snapshot), Segment.table(poolDevice, extentSizeBytes, segments));
    }

    /** Makes {@code volume} a snapshot-origin over its {@code -real} device, online. */
    void makeOrigin(MappedDevice volume) {
        devices.swap(volume, TableSpec.parse(Snapshots.originTable(realName(volume.name()), volume.sizeBytes() >> 9)));
    }

    /** Puts the linear table of {@code real} back into {@code volume}, online. */
    void makeLinear(MappedDevice volume, MappedDevice real) {
        devices.swap(volume, TableSpec.parse(real.tableText()));
    }

    /** Loads {@code snapshot-merge} into the volume (start-up of a merge that was running). */
    void makeMerging(MappedDevice volume, MappedDevice cow, long chunkSectors) {
        devices.swap(volume, TableSpec.parse(Snapshots.mergeTable(realName(volume.name()), cow.name(),
                StoreType.PERSISTENT, chunkSectors, volume.sizeBytes() >> 9)));
    }

    /**
     * Creates snapshot device {@code name} of {@code volume} with the volume suspended, so that no
     * write is in flight across the moment the snapshot begins.
     *
     * @throws TableException if the snapshot table is refused (a COW header that is not valid)
     */
    MappedDevice createSnapshot(MappedDevice volume, String name, MappedDevice cow, StoreType store,
                                long chunkSectors) {
        String table = Snapshots.snapshotTable(realName(volume.name()), cow.name(), store, chunkSectors,
                volume.sizeBytes() >> 9);
        volume.suspend(false, devices.suspendTimeout());
        try {
            return MappedDevice.create(name, null, table, devices.lookup(), devices.config());
        } finally {
            volume.resume();
        }
    }

    /** Starts rolling {@code volume} back to {@code snapshot}: see {@link Snapshots#merge}. */
    void merge(MappedDevice volume, MappedDevice snapshot) {
        Snapshots.merge(volume, snapshot, devices.lookup());
    }

    /** Suspends a device before its removal; see {@link MappedDevices#suspendForRemoval}. */
    void suspendForRemoval(MappedDevice d) {
        devices.suspendForRemoval(d);
    }

    /** Puts back a live table after a rolled-back change. */
    void restore(MappedDevice d, String tableText) {
        devices.restore(d, tableText);
    }
}
