package io.blockwork.engine.dm.targets;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.dm.DeviceLookup;
import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.Table;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.snapshot.SnapshotStatus;
import io.blockwork.engine.dm.snapshot.StoreType;
import java.util.Optional;

/**
 * The snapshot operations a service performs, from plain values, in the order dm needs them
 * (what lvm does with dmsetup):
 * <ul>
 *   <li>a volume that may get snapshots is a mapped device with a {@link #originTable} over the
 *       device holding its data;
 *   <li>{@link #create} takes a snapshot: the volume is suspended (no write in flight), the
 *       snapshot device created with a {@link #snapshotTable} on a COW device, the volume resumed;
 *   <li>{@link #merge} rolls the volume back: the snapshot device and the volume are suspended,
 *       the volume's table replaced by a {@link #mergeTable} that takes the snapshot over, the
 *       volume resumed (merging runs from there), and the snapshot device removed;
 *   <li>{@link #status} reads a snapshot's state, space and merge progress from its device.
 * </ul>
 * Errors are the dm ones: {@link TableException} names the refused table line (a bad COW header,
 * a handover refused), {@link DmException} a refused operation.
 */
public final class Snapshots {

    private Snapshots() {}

    /** {@code 0 <sectors> snapshot-origin <origin>}. */
    public static String originTable(String origin, long sectors) {
        return "0 " + sectors + " snapshot-origin " + origin + "\n";
    }

    /** {@code 0 <sectors> snapshot <origin> <cow> <P|PO|N> <chunk>}. */
    public static String snapshotTable(String origin, String cow, StoreType store, long chunkSectors, long sectors) {
        return "0 " + sectors + " snapshot " + origin + " " + cow + " " + store.code() + " " + chunkSectors + "\n";
    }

    /** {@code 0 <sectors> snapshot-merge <origin> <cow> <P|PO> <chunk>}. */
    public static String mergeTable(String origin, String cow, StoreType store, long chunkSectors, long sectors) {
        return "0 " + sectors + " snapshot-merge " + origin + " " + cow + " " + store.code() + " " + chunkSectors + "\n";
    }

    /**
     * Takes a snapshot of {@code volume} (a device whose live table is one {@code snapshot-origin}
     * target): suspends it, creates device {@code name} over {@code cow}, resumes it.
     *
     * @throws TableException if the snapshot table is refused; the volume is resumed and unchanged
     */
    public static MappedDevice create(MappedDevice volume, String name, BlockDevice cow, StoreType store,
                                      long chunkSectors, DeviceLookup lookup, DmConfig config) throws TableException {
        SnapshotOriginTarget origin = target(volume, SnapshotOriginTarget.class)
                .orElseThrow(() -> new DmException("'" + volume.name() + "' has no snapshot-origin table"));
        String table = snapshotTable(origin.origin().device().name(), cow.name(), store, chunkSectors,
                volume.sizeBytes() >> 9);
        volume.suspend();
        try {
            return MappedDevice.create(name, null, table, lookup, config);
        } finally {
            volume.resume();
        }
    }

    /**
     * Starts rolling {@code volume} back to {@code snapshot} (a device made by {@link #create}):
     * the volume's table becomes {@code snapshot-merge} over the snapshot's COW device, and the
     * snapshot device is removed. Follow the merge with {@link #status} until
     * {@link SnapshotStatus.MergeState#DONE}; then {@link #finishMerge}.
     *
     * @throws TableException if the merge table is refused; both devices are resumed unchanged
     */
    public static void merge(MappedDevice volume, MappedDevice snapshot, DeviceLookup lookup) throws TableException {
        SnapshotTarget snap = target(snapshot, SnapshotTarget.class)
                .orElseThrow(() -> new DmException("'" + snapshot.name() + "' has no snapshot table"));
        if (snap.snapshot().store().type() == StoreType.TRANSIENT) {
            throw new DmException("'" + snapshot.name() + "' is a transient snapshot, which cannot be merged");
        }
        String table = mergeTable(snap.snapshot().origin().name(), snap.snapshot().cow().name(),
                snap.snapshot().store().type(), snap.snapshot().chunkSectors(), volume.sizeBytes() >> 9);
        snapshot.suspend();
        volume.suspend();
        try {
            volume.load(table, lookup);
            volume.resume();
        } catch (RuntimeException e) {
            volume.clear();
            volume.resume();
            snapshot.resume();
            throw e;
        }
        snapshot.remove();
    }

    /** After a merge is done: the volume goes back to a plain {@code snapshot-origin} table. */
    public static void finishMerge(MappedDevice volume, DeviceLookup lookup) throws TableException {
        SnapshotMergeTarget m = target(volume, SnapshotMergeTarget.class)
                .orElseThrow(() -> new DmException("'" + volume.name() + "' is not merging"));
        if (m.snapshotStatus().merge() != SnapshotStatus.MergeState.DONE) {
            throw new DmException("the merge into '" + volume.name() + "' is not done: " + m.snapshotStatus().text());
        }
        volume.load(originTable(m.snapshot().origin().name(), volume.sizeBytes() >> 9), lookup);
        volume.resume();
    }

    /** The state of the snapshot (or merging snapshot) in {@code device}'s live table, if it has one. */
    public static Optional<SnapshotStatus> status(MappedDevice device) {
        return target(device, SnapshotTarget.class).map(SnapshotTarget::snapshotStatus)
                .or(() -> target(device, SnapshotMergeTarget.class).map(SnapshotMergeTarget::snapshotStatus));
    }

    /** Whether {@code device}'s live table is one {@code snapshot-origin} target. */
    public static boolean isOrigin(MappedDevice device) {
        return target(device, SnapshotOriginTarget.class).isPresent();
    }

    /** Whether {@code device}'s live table is one {@code snapshot-merge} target. */
    public static boolean isMerging(MappedDevice device) {
        return target(device, SnapshotMergeTarget.class).isPresent();
    }

    private static <T extends Target> Optional<T> target(MappedDevice device, Class<T> type) {
        Table t = device.liveTable();
        if (t == null || t.entries().size() != 1) {
            return Optional.empty();
        }
        Target target = t.entries().getFirst().target();
        return type.isInstance(target) ? Optional.of(type.cast(target)) : Optional.empty();
    }
}
