package io.blockwork.engine.dm.thin;

import java.util.Arrays;

/**
 * Copy-on-write B+tree operations over the nodes of a {@link MetadataSpace}: u64 keys, u64 values,
 * leaves holding the values, internal nodes holding children. Every operation that changes a
 * tree takes its root block and returns the new one; the caller stores it where the old root was
 * referenced (the superblock, a devices-tree value), since shadowing the root moved that
 * reference ({@link MetadataSpace#shadow}).
 *
 * <p>Insertion splits full nodes on the way down (so a split never has to climb back up);
 * removal shadows the path, drops the entry, then on the way back frees emptied nodes and merges
 * a node that fell to a quarter full into a sibling when both fit in one. A value an insert
 * replaces, or a removal drops, gives up its reference ({@link MetadataSpace#releaseValue}); an
 * inserted value brings its reference with it.
 *
 * <p>Not thread-safe: {@link PoolMetadata} calls it under its lock.
 */
final class BTree {

    static final long NOT_FOUND = -1;

    /** A leaf entry made ready to change in place: its leaf is fresh, and {@code root} is the tree's new root. */
    record Slot(long root, Node leaf, int index) {
        long value() {
            return leaf.values[index];
        }

        void value(long v) {
            leaf.values[index] = v;
        }
    }

    /** Receives a tree's entries in key order. */
    @FunctionalInterface
    interface Visitor {
        void entry(long key, long value);
    }

    private final MetadataSpace space;

    BTree(MetadataSpace space) {
        this.space = space;
    }

    /** A new tree: one empty leaf. */
    long create(TreeKind kind) {
        return space.alloc(kind, true).block;
    }

    long lookup(long root, long key) {
        Node n = space.node(root);
        while (!n.leaf) {
            if (n.count == 0 || key < n.keys[0]) {
                return NOT_FOUND;
            }
            n = space.node(n.values[n.childIndex(key)]);
        }
        int i = n.search(key);
        return i >= 0 ? n.values[i] : NOT_FOUND;
    }

    /** The largest key, or {@link #NOT_FOUND} for an empty tree. */
    long lastKey(long root) {
        Node n = space.node(root);
        while (!n.leaf) {
            if (n.count == 0) {
                return NOT_FOUND;
            }
            n = space.node(n.values[n.count - 1]);
        }
        return n.count == 0 ? NOT_FOUND : n.keys[n.count - 1];
    }

    /**
     * The smallest key at or above {@code key}, or {@link #NOT_FOUND}. Walks on to the next child
     * when the one {@code key} routes to holds nothing at or above it.
     */
    long ceilingKey(long root, long key) {
        Node n = space.node(root);
        if (n.leaf) {
            int i = n.search(key);
            int at = i >= 0 ? i : -i - 1;
            return at < n.count ? n.keys[at] : NOT_FOUND;
        }
        for (int i = n.childIndex(key); i < n.count; i++) {
            long found = ceilingKey(n.values[i], key);
            if (found != NOT_FOUND) {
                return found;
            }
        }
        return NOT_FOUND;
    }

    /** True if a node on the way to {@code key}, the root included, has more than one reference. */
    boolean pathShared(long root, long key) {
        long b = root;
        while (true) {
            if (space.refs(b) > 1) {
                return true;
            }
            Node n = space.node(b);
            if (n.leaf || n.count == 0) {
                return false;
            }
            b = n.values[n.childIndex(key)];
        }
    }

    /** Levels from the root to the leaves (1 for a lone leaf). */
    int height(long root) {
        int h = 1;
        for (Node n = space.node(root); !n.leaf && n.count > 0; n = space.node(n.values[0])) {
            h++;
        }
        return h;
    }

    void forEach(long root, Visitor v) {
        Node n = space.node(root);
        for (int i = 0; i < n.count; i++) {
            if (n.leaf) {
                v.entry(n.keys[i], n.values[i]);
            } else {
                forEach(n.values[i], v);
            }
        }
    }

    /** Sets {@code key} to {@code value}, which brings one reference; returns the new root. */
    long insert(long root, long key, long value) {
        Node r = space.shadow(root);
        if (r.full()) {
            Node top = space.alloc(r.kind, false);
            top.insertAt(0, r.keys[0], r.block);
            splitChild(top, 0, r);
            r = top;
        }
        Node n = r;
        while (!n.leaf) {
            int i = n.childIndex(key);
            if (key < n.keys[i]) {
                n.keys[i] = key; // the new lowest key of the tree goes into child 0
            }
            Node c = space.shadow(n.values[i]);
            n.values[i] = c.block;
            if (c.full()) {
                splitChild(n, i, c);
                if (key >= n.keys[i + 1]) {
                    c = space.node(n.values[i + 1]);
                }
            }
            n = c;
        }
        int i = n.search(key);
        if (i >= 0) {
            long old = n.values[i];
            n.values[i] = value;
            space.releaseValue(n.kind, old);
        } else {
            n.insertAt(-i - 1, key, value);
        }
        return r.block;
    }

    /** Moves the upper half of full, fresh {@code child} (entry {@code i} of fresh {@code parent}) to a new sibling. */
    private void splitChild(Node parent, int i, Node child) {
        Node right = space.alloc(child.kind, child.leaf);
        child.moveTail(child.count / 2, right);
        parent.insertAt(i + 1, right.keys[0], right.block);
    }

    /**
     * Shadows the path to {@code key}'s entry so that its value can be changed in place (a
     * devices-tree value whose mapping tree got a new root); null if the key is absent, with
     * nothing changed.
     */
    Slot slot(long root, long key) {
        if (lookup(root, key) == NOT_FOUND) {
            return null;
        }
        Node r = space.shadow(root);
        Node n = r;
        while (!n.leaf) {
            int i = n.childIndex(key);
            Node c = space.shadow(n.values[i]);
            n.values[i] = c.block;
            n = c;
        }
        return new Slot(r.block, n, n.search(key));
    }

    /** Removes {@code key} (dropping its value's reference); returns the new root, or {@code root} if it was absent. */
    long remove(long root, long key) {
        if (lookup(root, key) == NOT_FOUND) {
            return root;
        }
        Node r = space.shadow(root);
        Node[] path = new Node[16];
        int[] at = new int[16];
        int depth = 0;
        Node n = r;
        while (!n.leaf) {
            int i = n.childIndex(key);
            Node c = space.shadow(n.values[i]);
            n.values[i] = c.block;
            if (depth == path.length) {
                path = Arrays.copyOf(path, depth * 2);
                at = Arrays.copyOf(at, depth * 2);
            }
            path[depth] = n;
            at[depth++] = i;
            n = c;
        }
        int i = n.search(key);
        long old = n.values[i];
        n.removeAt(i);
        space.releaseValue(n.kind, old);
        while (depth-- > 0) {
            fixChild(path[depth], at[depth]);
        }
        while (!r.leaf && r.count == 1) {
            r = space.shadow(r.block); // a sibling that became the root may be shared
            long only = r.values[0];
            space.freeMoved(r.block);
            r = space.node(only);
        }
        if (!r.leaf && r.count == 0) {
            TreeKind kind = r.kind;
            space.freeMoved(r.block);
            return create(kind);
        }
        return r.block;
    }

    /** After a removal below fresh {@code parent}'s child {@code i}: drop it if empty, else refresh its key and merge it if it is thin. */
    private void fixChild(Node parent, int i) {
        Node child = space.node(parent.values[i]);
        if (child.count == 0) {
            parent.removeAt(i);
            space.freeMoved(child.block);
            return;
        }
        parent.keys[i] = child.keys[0];
        if (child.count > child.capacity() / 4 || parent.count < 2) {
            return;
        }
        int j = i + 1 < parent.count ? i + 1 : i - 1;
        if (child.count + space.node(parent.values[j]).count > child.capacity()) {
            return;
        }
        Node sibling = space.shadow(parent.values[j]);
        parent.values[j] = sibling.block;
        int left = Math.min(i, j);
        Node l = space.node(parent.values[left]);
        Node rt = space.node(parent.values[left + 1]);
        rt.moveTail(0, l);
        parent.removeAt(left + 1);
        space.freeMoved(rt.block);
    }
}
