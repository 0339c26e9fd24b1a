package io.blockwork.engine.dm.thin;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * The metadata device's blocks in memory: every live B-tree node, its reference count, which
 * blocks are free, and the open transaction (the kernel's transaction manager and metadata space
 * map, in one place).
 *
 * <p>Copy-on-write. A node written by an earlier commit is never changed: {@link #shadow} copies
 * it to a fresh block first, and only fresh blocks (allocated since the last commit closed) are
 * changed in place. A block freed in the open transaction stays taken until that transaction's
 * commit is durable ({@link #durable}), since the committed trees may still reach it; a fresh
 * block freed before it was ever written is free at once.
 *
 * <p>Reference counts follow the copy-on-write B-tree scheme dm-thin uses (Rodeh): a node's count
 * is the number of pointers to it (parent entries, devices-tree values, superblock roots). A
 * snapshot shares a whole tree by adding one reference to its root; copying a shared node adds a
 * reference to everything it points to, so sharing is broken lazily, one path at a time. Data
 * block references in shared leaves are counted the same way ({@link DataSpace}). The counts are
 * not stored: {@link MetadataReader#readTrees} walks the committed trees once and counts the
 * pointers, which is what a stored count would say, so a crash can never leave them wrong.
 *
 * <p>Not thread-safe: {@link PoolMetadata} calls it under its lock.
 */
final class MetadataSpace {

    /** Block 0 is the superblock; nodes live above it. */
    static final long SUPERBLOCK = 0;

    /** Thrown when a node cannot be allocated; operations reserve space first, so this means a bug or a bad bound. */
    static final class Exhausted extends RuntimeException {
        Exhausted(long blocks) {
            super("the metadata device is full (" + blocks + " blocks)");
        }
    }

    /** Data block reference counting, for mapping-tree leaves. */
    interface DataRefs {
        void inc(long dataBlock);

        void dec(long dataBlock);
    }

    private final int capacity;
    private Node[] nodes;
    private int[] refs;
    /** Live, or freed but still reachable from a committed superblock, or the superblock itself. */
    private final BitSet taken = new BitSet();
    /** Allocated in the open transaction: written at its commit, changeable in place until then. */
    private final BitSet fresh = new BitSet();
    private long[] freedOpen = new long[16];
    private int freedOpenCount;
    private long blocks;
    private long takenCount;
    private long cursor = 1;
    private final long[] liveByKind = new long[TreeKind.values().length];
    private DataRefs data;

    MetadataSpace(int capacity, long blocks) {
        this.capacity = capacity;
        this.blocks = blocks;
        this.nodes = new Node[(int) blocks];
        this.refs = new int[(int) blocks];
        taken.set(0);
        takenCount = 1;
    }

    void dataRefs(DataRefs d) {
        this.data = d;
    }

    int capacity() {
        return capacity;
    }

    long blocks() {
        return blocks;
    }

    /** Blocks in use or not yet reusable (the superblock included). */
    long used() {
        return takenCount;
    }

    long free() {
        return blocks - takenCount;
    }

    long liveNodes(TreeKind kind) {
        return liveByKind[kind.ordinal()];
    }

    /** Grows the usable area (the metadata device grew); shrinking is refused by the caller. */
    void resize(long newBlocks) {
        if (newBlocks > blocks) {
            nodes = Arrays.copyOf(nodes, (int) newBlocks);
            refs = Arrays.copyOf(refs, (int) newBlocks);
            blocks = newBlocks;
        }
    }

    /* ---- Nodes ---- */

    Node node(long b) {
        Node n = b > 0 && b < blocks ? nodes[(int) b] : null;
        if (n == null) {
            throw new IllegalStateException("metadata block " + b + " holds no live node");
        }
        return n;
    }

    int refs(long b) {
        return refs[(int) b];
    }

    boolean fresh(long b) {
        return fresh.get((int) b);
    }

    /** A new, empty node with one reference (the caller's). */
    Node alloc(TreeKind kind, boolean leaf) {
        return place(new Node(allocBlock(), kind, leaf, capacity));
    }

    private long allocBlock() {
        int b = taken.nextClearBit((int) cursor);
        if (b >= blocks) {
            b = taken.nextClearBit(1);
            if (b >= blocks) {
                throw new Exhausted(blocks);
            }
        }
        taken.set(b);
        fresh.set(b);
        takenCount++;
        cursor = b + 1L;
        return b;
    }

    private Node place(Node n) {
        nodes[(int) n.block] = n;
        refs[(int) n.block] = 1;
        liveByKind[n.kind.ordinal()]++;
        return n;
    }

    /**
     * The node at {@code b}, ready to change: itself if fresh, else a fresh copy that takes over one
     * of its references (the caller must store the returned block where {@code b} was). A shared
     * original keeps its other references, and its entries gain one each from the copy.
     */
    Node shadow(long b) {
        if (fresh(b)) {
            return node(b);
        }
        Node old = node(b);
        Node copy = place(old.copyTo(allocBlock()));
        if (refs[(int) b] > 1) {
            // The snapshot cascade: a copied leaf's data blocks each gain a reference (counted in
            // memory, DataSpace), a copied internal node's children each gain one.
            for (int i = 0; i < old.count; i++) {
                incEntry(old, i);
            }
            refs[(int) b]--;
        } else {
            drop(old);
        }
        return copy;
    }

    /** One more reference to node {@code b} (a snapshot's root, a held root). */
    void inc(long b) {
        node(b);
        refs[(int) b]++;
    }

    /** Drops one reference to node {@code b}; a node left with none is freed and drops its own references. */
    void release(long b) {
        long[] stack = {b};
        int top = 1;
        while (top > 0) {
            long x = stack[--top];
            Node n = node(x);
            if (--refs[(int) x] > 0) {
                continue;
            }
            drop(n);
            for (int i = 0; i < n.count; i++) {
                long child = childRef(n, i);
                if (child >= 0) {
                    if (top == stack.length) {
                        stack = Arrays.copyOf(stack, top * 2);
                    }
                    stack[top++] = child;
                } else if (n.kind.values == TreeKind.Values.DATA) {
                    data.dec(BlockTime.block(n.values[i]));
                }
            }
        }
    }

    /** Frees node {@code b}, whose one reference is going away and whose entries have moved to another node. */
    void freeMoved(long b) {
        Node n = node(b);
        if (refs[(int) b] != 1) {
            throw new IllegalStateException("moving the entries of shared node " + n);
        }
        drop(n);
    }

    /** A leaf value's reference changes hands: count it (when a shared leaf is copied). */
    private void incEntry(Node n, int i) {
        long child = childRef(n, i);
        if (child >= 0) {
            refs[(int) child]++;
        } else if (n.kind.values == TreeKind.Values.DATA) {
            data.inc(BlockTime.block(n.values[i]));
        }
    }

    /** Drops the reference a leaf value holds (an entry removed or overwritten). */
    void releaseValue(TreeKind kind, long value) {
        switch (kind.values) {
            case METADATA -> release(value);
            case DATA -> data.dec(BlockTime.block(value));
            case PLAIN -> { }
        }
    }

    /** The metadata block entry {@code i} points at, or -1 if it is not a node reference. */
    private static long childRef(Node n, int i) {
        return !n.leaf || n.kind.values == TreeKind.Values.METADATA ? n.values[i] : -1;
    }

    private void drop(Node n) {
        int b = (int) n.block;
        nodes[b] = null;
        refs[b] = 0;
        liveByKind[n.kind.ordinal()]--;
        if (fresh.get(b)) {
            fresh.clear(b);
            taken.clear(b);
            takenCount--;
            cursor = Math.min(cursor, b);
        } else {
            if (freedOpenCount == freedOpen.length) {
                freedOpen = Arrays.copyOf(freedOpen, freedOpenCount * 2);
            }
            freedOpen[freedOpenCount++] = b;
        }
    }

    /* ---- Loading ---- */

    /** Adds a node read from the device (no references yet; {@link #addRef} counts them). */
    void adopt(Node n) {
        nodes[(int) n.block] = n;
        liveByKind[n.kind.ordinal()]++;
        taken.set((int) n.block);
        takenCount++;
    }

    boolean loaded(long b) {
        return b > 0 && b < blocks && nodes[(int) b] != null;
    }

    void addRef(long b) {
        refs[(int) b]++;
    }

    /* ---- Transactions ---- */

    /** What the open transaction changed: the nodes to write, and the blocks it freed. */
    record Closed(List<Node> dirty, long[] freed) {}

    /** Closes the open transaction: its fresh nodes become read-only (to be written by the commit). */
    Closed closeTransaction() {
        List<Node> dirty = new ArrayList<>(fresh.cardinality());
        for (int b = fresh.nextSetBit(0); b >= 0; b = fresh.nextSetBit(b + 1)) {
            dirty.add(nodes[b]);
        }
        fresh.clear();
        long[] freed = Arrays.copyOf(freedOpen, freedOpenCount);
        freedOpenCount = 0;
        return new Closed(dirty, freed);
    }

    /** A commit naming none of {@code freed} is durable: they may be reused. */
    void durable(long[] freed) {
        for (long b : freed) {
            taken.clear((int) b);
            takenCount--;
        }
        if (freed.length > 0) {
            cursor = 1;
        }
    }

    /** Fresh nodes of the open transaction (changed since the last commit closed). */
    int freshCount() {
        return fresh.cardinality();
    }

    boolean changedSinceClose() {
        return !fresh.isEmpty() || freedOpenCount > 0;
    }
}
