package io.blockwork.engine.dm.thin;

import java.util.Map;
import java.util.TreeMap;

/**
 * The pool's two-level mapping tree (dm-thin-metadata's {@code tl_info} over dm-btree): the
 * devices tree (thin device id → root of its mapping tree) and one mapping tree per device
 * (virtual block → {@link BlockTime}). A snapshot is a devices entry naming its origin's root
 * and one more reference to that root, so taking it is O(1); the first change below a shared
 * node copies it ({@link MetadataSpace#shadow}).
 *
 * <p>Not thread-safe: {@link PoolMetadata} calls it under its lock.
 */
final class MappingTree {

    /** {@link #runAt}: mapped blocks counted in one hold of the lock, at most; a longer run is asked for again. */
    static final long RUN_PER_HOLD = 1024;

    private final BTree tree;
    private final MetadataSpace space;
    private long root;

    MappingTree(BTree tree, MetadataSpace space, long root) {
        this.tree = tree;
        this.space = space;
        this.root = root;
    }

    /** The devices tree's root. */
    long root() {
        return root;
    }

    /** Levels of the devices tree. */
    int height() {
        return tree.height(root);
    }

    /** The root of {@code dev}'s mapping tree, or {@link BTree#NOT_FOUND}. */
    long deviceRoot(long dev) {
        return tree.lookup(root, dev);
    }

    /** True if the mapping tree at {@code deviceRoot} maps {@code vblock}. */
    boolean maps(long deviceRoot, long vblock) {
        return tree.lookup(deviceRoot, vblock) != BTree.NOT_FOUND;
    }

    /** The packed {@link BlockTime} of {@code (dev, vblock)}, or {@link BTree#NOT_FOUND}. */
    long lookup(long dev, long vblock) {
        long r = deviceRoot(dev);
        return r == BTree.NOT_FOUND ? BTree.NOT_FOUND : tree.lookup(r, vblock);
    }

    /**
     * True if a node on the devices path to {@code dev} or on the mapping path to {@code vblock}
     * (under {@code deviceRoot}) has other references: a change there copies a shared leaf.
     */
    boolean pathShared(long dev, long deviceRoot, long vblock) {
        return tree.pathShared(root, dev) || tree.pathShared(deviceRoot, vblock);
    }

    /** The highest mapped virtual block of {@code dev}, or -1 if it maps none. */
    long highestMapped(long dev) {
        long r = deviceRoot(dev);
        return r == BTree.NOT_FOUND ? -1 : tree.lastKey(r);
    }

    /**
     * From {@code vblock} on, up to {@code maxBlocks} virtual blocks of {@code dev} that are all
     * mapped or all unmapped: an unmapped run with one walk of the tree, a mapped one block by
     * block, at most {@link #RUN_PER_HOLD}.
     */
    PoolMetadata.Run runAt(long dev, long vblock, long maxBlocks) {
        long r = deviceRoot(dev);
        if (r == BTree.NOT_FOUND) {
            return new PoolMetadata.Run(false, maxBlocks);
        }
        if (!maps(r, vblock)) {
            long next = tree.ceilingKey(r, vblock);
            return new PoolMetadata.Run(false, next == BTree.NOT_FOUND ? maxBlocks : Math.min(maxBlocks, next - vblock));
        }
        long n = 1;
        for (long cap = Math.min(maxBlocks, RUN_PER_HOLD); n < cap && maps(r, vblock + n); ) {
            n++;
        }
        return new PoolMetadata.Run(true, n);
    }

    /** Every mapping of {@code dev}: virtual block → data block, ascending. */
    Map<Long, Long> blocks(long dev) {
        Map<Long, Long> out = new TreeMap<>();
        long r = deviceRoot(dev);
        if (r != BTree.NOT_FOUND) {
            tree.forEach(r, (v, bt) -> out.put(v, BlockTime.block(bt)));
        }
        return out;
    }

    /* ---- Changes ---- */

    /** A new device with an empty mapping tree. */
    void create(long dev) {
        root = tree.insert(root, dev, tree.create(TreeKind.MAPPING));
    }

    /** {@code dev} shares {@code origin}'s mapping tree: one more reference to its root. */
    void snapshot(long dev, long origin) {
        long r = tree.lookup(root, origin);
        space.inc(r);
        root = tree.insert(root, dev, r);
    }

    /** Drops {@code dev}'s reference to its mapping tree. */
    void delete(long dev) {
        root = tree.remove(root, dev);
    }

    /**
     * Shadows the devices path to {@code dev} so that its mapping root can change in place
     * ({@link #insert}); null if the device does not exist, with nothing changed.
     */
    BTree.Slot open(long dev) {
        BTree.Slot slot = tree.slot(root, dev);
        if (slot != null) {
            root = slot.root();
        }
        return slot;
    }

    /** Maps {@code vblock} to {@code blockTime} in the device {@link #open} gave; true if it was unmapped. */
    boolean insert(BTree.Slot device, long vblock, long blockTime) {
        long r = device.value();
        boolean fresh = !maps(r, vblock);
        device.value(tree.insert(r, vblock, blockTime));
        return fresh;
    }

    /** Unmaps {@code (dev, vblock)}; the device exists. */
    void remove(long dev, long vblock) {
        BTree.Slot slot = open(dev);
        slot.value(tree.remove(slot.value(), vblock));
    }
}
