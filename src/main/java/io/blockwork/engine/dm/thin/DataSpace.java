package io.blockwork.engine.dm.thin;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The data device's blocks: reference counts in a B-tree of the metadata (data block → count,
 * entries only for counts above zero, so the metadata grows with the data written, not with the
 * device), plus an in-memory bitmap of blocks that may not be handed out.
 *
 * <p>A block's count is the number of mapping-tree leaf entries that name it; a leaf shared by
 * several devices after a snapshot counts once until a write copies it (see
 * {@link MetadataSpace}). A block whose count drops to zero stays taken until the commit that
 * frees it is durable, because the committed mappings may still name it; reusing it earlier would
 * let new data overwrite a block a crash would bring back.
 *
 * <p>Not thread-safe: {@link PoolMetadata} calls it under its lock.
 */
final class DataSpace implements MetadataSpace.DataRefs {

    private final BTree tree;
    private long root;
    private long blocks;
    private final BitSet taken = new BitSet();
    private long used;
    /** Blocks handed out by {@link #alloc} whose mapping is not inserted yet (not in the tree). */
    private long allocating;
    private long takenCount;
    private long cursor;
    private long[] freedOpen = new long[16];
    private int freedOpenCount;

    DataSpace(BTree tree, long root, long blocks) {
        this.tree = tree;
        this.root = root;
        this.blocks = blocks;
    }

    /** Rebuilds the bitmap from the committed counts (at open). */
    void load() {
        tree.forEach(root, (block, count) -> {
            taken.set((int) block);
            used++;
            takenCount++;
        });
    }

    long root() {
        return root;
    }

    long blocks() {
        return blocks;
    }

    /** Blocks with a reference (recorded in the tree). */
    long used() {
        return used;
    }

    /** Blocks with a reference, and blocks allocated for mappings being made. */
    long inUse() {
        return used + allocating;
    }

    /** Blocks that can be allocated now (freed blocks count once their commit is durable). */
    long free() {
        return blocks - takenCount;
    }

    /** Blocks freed in the open transaction (allocatable after its commit). */
    int freedPending() {
        return freedOpenCount;
    }

    void resize(long newBlocks) {
        blocks = Math.max(blocks, newBlocks);
    }

    /**
     * A free block for a mapping about to be made, or -1 if none is free. It is only taken in
     * memory: its count (one) is recorded by {@link #record} when the mapping is inserted, so a
     * commit between the two does not make the block's use durable without its mapping (a crash
     * then would leak it); {@link #release} gives it back unused.
     */
    long alloc() {
        long b = next(cursor);
        if (b < 0) {
            b = next(0);
            if (b < 0) {
                return -1;
            }
        }
        taken.set((int) b);
        takenCount++;
        allocating++;
        cursor = b + 1;
        return b;
    }

    /** The mapping of a block from {@link #alloc} is being inserted: record its reference. */
    void record(long b) {
        allocating--;
        used++;
        root = tree.insert(root, b, 1);
    }

    /** A block from {@link #alloc} will not be mapped: free at once (nothing durable ever named it). */
    void release(long b) {
        allocating--;
        taken.clear((int) b);
        takenCount--;
    }

    private long next(long from) {
        if (from >= blocks) {
            return -1;
        }
        int b = taken.nextClearBit((int) from);
        return b < blocks ? b : -1;
    }

    /** True if {@code b} may not be allocated (referenced, or freed by a commit not yet durable). */
    boolean taken(long b) {
        return taken.get((int) b);
    }

    long refcount(long b) {
        long c = tree.lookup(root, b);
        return c == BTree.NOT_FOUND ? 0 : c;
    }

    @Override
    public void inc(long b) {
        long c = refcount(b);
        if (c == 0) {
            throw new IllegalStateException("data block " + b + " has no reference to add to");
        }
        root = tree.insert(root, b, c + 1);
    }

    /**
     * Adds a reference to each block, sorted first so that the blocks one refcount leaf holds are
     * counted under one shadowed path: each leaf is made fresh once ({@link BTree#slot}) and its
     * counts are then changed in place. Only existing counts change, so no node splits or merges.
     */
    @Override
    public void incAll(long[] blocks, int count) {
        Arrays.sort(blocks, 0, count);
        int i = 0;
        while (i < count) {
            BTree.Slot slot = tree.slot(root, blocks[i]);
            if (slot == null) {
                throw new IllegalStateException("data block " + blocks[i] + " has no reference to add to");
            }
            root = slot.root();
            Node leaf = slot.leaf();
            int at = slot.index();
            do {
                leaf.values[at]++;
                i++;
                at = i < count ? leaf.search(blocks[i]) : -1;
            } while (at >= 0);
        }
    }

    @Override
    public void dec(long b) {
        long c = refcount(b);
        if (c == 0) {
            throw new IllegalStateException("data block " + b + " is already free");
        }
        if (c > 1) {
            root = tree.insert(root, b, c - 1);
            return;
        }
        root = tree.remove(root, b);
        used--;
        if (freedOpenCount == freedOpen.length) {
            freedOpen = Arrays.copyOf(freedOpen, freedOpenCount * 2);
        }
        freedOpen[freedOpenCount++] = b;
    }

    /** Closes the open transaction: the blocks it freed, to hand to {@link #durable} after its commit. */
    long[] closeTransaction() {
        long[] freed = Arrays.copyOf(freedOpen, freedOpenCount);
        freedOpenCount = 0;
        return freed;
    }

    void durable(long[] freed) {
        for (long b : freed) {
            taken.clear((int) b);
            takenCount--;
        }
    }

    void forEach(BTree.Visitor v) {
        tree.forEach(root, v);
    }
}
