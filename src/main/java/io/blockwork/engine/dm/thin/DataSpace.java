package io.blockwork.engine.dm.thin;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The data device's blocks: reference counts, plus an in-memory bitmap of blocks that may not be
 * handed out. The counts live in memory ({@link DataCounts}); the metadata's refcount B-tree
 * (data block → count, entries only for counts above zero, so the metadata grows with the data
 * written, not with the device) is what a commit writes, and what {@link #load} reads back.
 *
 * <p>A block's count is the number of mapping-tree leaf entries that name it; a leaf shared by
 * several devices after a snapshot counts once until a write copies it (see
 * {@link MetadataSpace}). A block whose count drops to zero stays taken until the commit that
 * frees it is durable, because the committed mappings may still name it; reusing it earlier would
 * let new data overwrite a block a crash would bring back.
 *
 * <p>Design note: the I/O path only counts in memory. A new block's first reference is inserted
 * into the tree at once ({@link #record}; a batch of inserts could split nodes without a bound
 * that stays small), but every other change (a mapping replaced or removed drops a reference, a
 * copied shared leaf adds one to each block it names) only changes the count in memory and marks
 * the block <em>pending</em>; {@link #applyPending} writes the pending counts into the tree in
 * block order when the transaction closes, as dm-thin batches its space-map changes in the
 * transaction. Those changes update or remove existing entries, so they never split a node: all
 * of them together shadow each refcount node at most once a transaction, which bounds the
 * metadata they take ({@link SpaceMap}'s refcount reserve). A crash loses nothing: the
 * committed tree is the last transaction's, whose counts were applied before it closed.
 *
 * <p>Not thread-safe: {@link PoolMetadata} calls it under its lock.
 */
final class DataSpace implements MetadataSpace.DataRefs {

    private final BTree tree;
    private long root;
    private long blocks;
    private final BitSet taken = new BitSet();
    /** Every block's count, the open transaction's changes included. */
    private final DataCounts counts = new DataCounts();
    /** Blocks whose count in memory is not yet in the tree ({@link #applyPending}). */
    private final BitSet pending = new BitSet();
    private int pendingCount;
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
            counts.set(block, (int) count);
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
        counts.set(b, 1);
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
        return counts.get(b);
    }

    @Override
    public void inc(long b) {
        int c = counts.get(b);
        if (c == 0) {
            throw new IllegalStateException("data block " + b + " has no reference to add to");
        }
        changed(b, c + 1);
    }

    @Override
    public void dec(long b) {
        int c = counts.get(b);
        if (c == 0) {
            throw new IllegalStateException("data block " + b + " is already free");
        }
        changed(b, c - 1);
        if (c > 1) {
            return;
        }
        used--;
        if (freedOpenCount == freedOpen.length) {
            freedOpen = Arrays.copyOf(freedOpen, freedOpenCount * 2);
        }
        freedOpen[freedOpenCount++] = b;
    }

    private void changed(long b, int count) {
        counts.set(b, count);
        if (!pending.get((int) b)) {
            pending.set((int) b);
            pendingCount++;
        }
    }

    /** Blocks whose count the tree does not have yet. */
    int pendingCount() {
        return pendingCount;
    }

    /** True if {@code b}'s count in memory is not yet in the tree. */
    boolean pending(long b) {
        return pending.get((int) b);
    }

    /**
     * Writes the pending counts into the tree, in block order: first the counts that stay above
     * zero, in place, each leaf shadowed once for the run of blocks it holds; then the entries of
     * blocks whose count fell to zero are removed. Every pending block has an entry (its first
     * reference was inserted by {@link #record}), so nothing is inserted and no node splits.
     */
    void applyPending() {
        if (pendingCount == 0) {
            return;
        }
        int b = nextCounted(0);
        while (b >= 0) {
            BTree.Slot slot = tree.slot(root, b);
            if (slot == null) {
                throw new IllegalStateException("data block " + b + " has a count but no refcount entry");
            }
            root = slot.root();
            Node leaf = slot.leaf();
            int at = slot.index();
            while (true) {
                leaf.values[at] = counts.get(b);
                b = nextCounted(b + 1);
                // The blocks ascend, as the leaf's keys do: step forward instead of searching
                // (a copied shared leaf makes every block it names pending).
                while (b >= 0 && at < leaf.count && leaf.keys[at] < b) {
                    at++;
                }
                if (b < 0 || at == leaf.count) {
                    break; // done, or b lies in a later leaf
                }
                if (leaf.keys[at] != b) {
                    throw new IllegalStateException("data block " + b + " has a count but no refcount entry");
                }
            }
        }
        for (int f = pending.nextSetBit(0); f >= 0; f = pending.nextSetBit(f + 1)) {
            if (counts.get(f) == 0) {
                root = tree.remove(root, f);
            }
        }
        pending.clear();
        pendingCount = 0;
    }

    /** The first pending block from {@code from} whose count is above zero, or -1. */
    private int nextCounted(int from) {
        int b = pending.nextSetBit(from);
        while (b >= 0 && counts.get(b) == 0) {
            b = pending.nextSetBit(b + 1);
        }
        return b;
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

    /** Every block with a reference and its count, ascending, the open transaction's changes included. */
    void forEach(BTree.Visitor v) {
        counts.forEach(v);
    }

    /** The refcount tree's entries: the counts as of the last {@link #applyPending}, and the blocks recorded since. */
    void forEachStored(BTree.Visitor v) {
        tree.forEach(root, v);
    }
}
