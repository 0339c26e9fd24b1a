package io.blockwork.engine.dm.thin;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The pool's thin devices as dm-thin-metadata keeps their details (its {@code dm_thin_device}
 * list with the {@code changed} flag): for each device id the blocks it maps and the pool time of
 * the last snapshot it took part in, the pool's time itself (snapshots taken), and the details
 * tree they are written into. Details change on every provisioning, so they live in memory and
 * reach the tree only when a transaction closes ({@link #writeChanged}).
 *
 * <p>Not thread-safe: {@link PoolMetadata} calls it under its lock.
 */
final class DeviceCatalogue {

    private final BTree tree;
    private final Map<Long, DeviceDetails> details = new TreeMap<>();
    /** Devices whose details changed since they were last written into the tree. */
    private final Set<Long> changed = new HashSet<>();
    private long root;
    private int time;

    DeviceCatalogue(BTree tree, long root, int time) {
        this.tree = tree;
        this.root = root;
        this.time = time;
    }

    /** Reads the committed details (at open). */
    void load() {
        tree.forEach(root, (dev, packed) -> details.put(dev, DeviceDetails.unpack(packed)));
    }

    /** The details tree as last written ({@link #writeChanged}). */
    long root() {
        return root;
    }

    /** The pool's time: snapshots taken, modulo {@link BlockTime#TIME_MASK}. */
    int time() {
        return time;
    }

    boolean exists(long dev) {
        return details.containsKey(dev);
    }

    /** Device ids, ascending. */
    List<Long> ids() {
        return List.copyOf(details.keySet());
    }

    long mappedBlocks(long dev) {
        DeviceDetails d = details.get(dev);
        return d == null ? 0 : d.mappedBlocks();
    }

    /** True if {@code dev}'s mapping made at {@code mappingTime} may be shared ({@link DeviceDetails#sharedSince}). */
    boolean shared(long dev, int mappingTime) {
        DeviceDetails d = details.get(dev);
        return d != null && d.sharedSince(mappingTime);
    }

    /** Refuses {@code dev} as a new device: outside the 24-bit ids, or taken. */
    void checkNew(long dev) throws ThinException {
        if (dev < 0 || dev > PoolMetadata.MAX_DEV_ID) {
            throw new ThinException("device id " + dev + " is outside 0.." + PoolMetadata.MAX_DEV_ID);
        }
        if (details.containsKey(dev)) {
            throw new ThinException("device id " + dev + " already exists");
        }
    }

    void checkExists(long dev) throws ThinException {
        if (!details.containsKey(dev)) {
            throw new ThinException("device id " + dev + " does not exist");
        }
    }

    void checkOrigin(long origin) throws ThinException {
        if (!details.containsKey(origin)) {
            throw new ThinException("origin device id " + origin + " does not exist");
        }
    }

    /** A new, empty thin device. */
    void created(long dev) {
        put(dev, new DeviceDetails(0, 0));
    }

    /** {@code dev} is a new snapshot of {@code origin}: the pool's time moves on, and both took part at it. */
    void snapshotted(long dev, long origin) {
        DeviceDetails o = details.get(origin);
        time = (time + 1) & BlockTime.TIME_MASK;
        put(origin, o.snapshottedAt(time));
        put(dev, new DeviceDetails(o.mappedBlocks(), time));
    }

    void deleted(long dev) {
        details.remove(dev);
        changed.add(dev);
    }

    /** {@code dev} maps {@code delta} more blocks. */
    void mapped(long dev, long delta) {
        put(dev, details.get(dev).withMapped(delta));
    }

    private void put(long dev, DeviceDetails d) {
        details.put(dev, d);
        changed.add(dev);
    }

    /** Devices whose details the next {@link #writeChanged} writes. */
    int changedCount() {
        return changed.size();
    }

    /** Writes the changed details into the tree; returns its root. */
    long writeChanged() {
        for (Long dev : changed) {
            DeviceDetails d = details.get(dev);
            root = d == null ? tree.remove(root, dev) : tree.insert(root, dev, d.pack());
        }
        changed.clear();
        return root;
    }

    /** The details in memory, by device id (for {@link MetadataCheck}). */
    Map<Long, DeviceDetails> details() {
        return details;
    }
}
