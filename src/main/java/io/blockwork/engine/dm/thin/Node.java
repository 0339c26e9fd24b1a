package io.blockwork.engine.dm.thin;

import static io.blockwork.engine.dm.thin.MetadataBlock.U16;
import static io.blockwork.engine.dm.thin.MetadataBlock.U32;
import static io.blockwork.engine.dm.thin.MetadataBlock.U64;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One B-tree node, in memory and (by {@link #encode}/{@link #decode}) as the 4 KiB block it is on
 * the metadata device:
 * <pre>
 *   0  u32 csum      CRC32C of bytes 4..4095 (salted)
 *   4  u16 flags     1 = internal, 2 = leaf
 *   6  u16 kind      {@link TreeKind} code
 *   8  u64 blocknr   where the node lives (a misdirected write is caught)
 *  16  u32 count     entries in use
 *  20  u32 capacity  entries the arrays hold
 *  24  u64 reserved
 *  32  u64 keys[capacity]
 *  ..  u64 values[capacity]
 * </pre>
 * Keys ascend. An internal node's key i is a lower bound of child i's keys (and above every key of
 * child i-1); its value i is the child's block. A leaf's values are its tree's values.
 *
 * <p>A node is changed in place only while its block is fresh (allocated in the open transaction
 * and not yet written); otherwise it is shadowed first ({@link MetadataSpace#shadow}).
 */
final class Node {

    static final int HEADER = 32;
    static final int INTERNAL = 1;
    static final int LEAF = 2;

    final long block;
    final TreeKind kind;
    final boolean leaf;
    int count;
    final long[] keys;
    final long[] values;

    Node(long block, TreeKind kind, boolean leaf, int capacity) {
        this.block = block;
        this.kind = kind;
        this.leaf = leaf;
        this.keys = new long[capacity];
        this.values = new long[capacity];
    }

    /** The largest capacity a 4 KiB node can hold. */
    static int maxCapacity() {
        return (MetadataBlock.SIZE - HEADER) / 16;
    }

    int capacity() {
        return keys.length;
    }

    boolean full() {
        return count == keys.length;
    }

    /** A copy at another block (for shadowing). */
    Node copyTo(long newBlock) {
        Node n = new Node(newBlock, kind, leaf, keys.length);
        n.count = count;
        System.arraycopy(keys, 0, n.keys, 0, count);
        System.arraycopy(values, 0, n.values, 0, count);
        return n;
    }

    /** Index of {@code key} if present, else {@code -(insertion point) - 1}. */
    int search(long key) {
        return Arrays.binarySearch(keys, 0, count, key);
    }

    /** Internal nodes: the child whose range holds {@code key} (the first one for keys below all). */
    int childIndex(long key) {
        int i = search(key);
        if (i >= 0) {
            return i;
        }
        return Math.max(0, -i - 2);
    }

    void insertAt(int i, long key, long value) {
        System.arraycopy(keys, i, keys, i + 1, count - i);
        System.arraycopy(values, i, values, i + 1, count - i);
        keys[i] = key;
        values[i] = value;
        count++;
    }

    void removeAt(int i) {
        System.arraycopy(keys, i + 1, keys, i, count - i - 1);
        System.arraycopy(values, i + 1, values, i, count - i - 1);
        count--;
    }

    /** Moves entries {@code [from, count)} to the end of {@code to}. */
    void moveTail(int from, Node to) {
        int n = count - from;
        System.arraycopy(keys, from, to.keys, to.count, n);
        System.arraycopy(values, from, to.values, to.count, n);
        to.count += n;
        count = from;
    }

    /* ---- On disk ---- */

    byte[] encode() {
        byte[] b = new byte[MetadataBlock.SIZE];
        MemorySegment m = MemorySegment.ofArray(b);
        int cap = keys.length;
        m.set(U16, 4, (short) (leaf ? LEAF : INTERNAL));
        m.set(U16, 6, (short) kind.code);
        m.set(U64, 8, block);
        m.set(U32, 16, count);
        m.set(U32, 20, cap);
        MemorySegment.copy(keys, 0, m, U64, HEADER, count);
        MemorySegment.copy(values, 0, m, U64, HEADER + 8L * cap, count);
        MetadataBlock.seal(b, MetadataBlock.NODE_SALT);
        return b;
    }

    /**
     * Decodes the node read from {@code block}, checking its checksum, its own block number, its
     * kind, its shape and the order of its keys.
     *
     * @throws ThinException naming the block and what is wrong with it
     */
    static Node decode(byte[] b, long block, TreeKind expected, int capacity) throws ThinException {
        MemorySegment m = MemorySegment.ofArray(b);
        String where = "metadata block " + block + " (" + expected + " tree)";
        if (!MetadataBlock.sealed(b, MetadataBlock.NODE_SALT)) {
            throw new ThinException(where + ": node checksum failed");
        }
        if (m.get(U64, 8) != block) {
            throw new ThinException(where + ": node says it is block " + m.get(U64, 8));
        }
        int flags = m.get(U16, 4);
        TreeKind kind = TreeKind.fromCode(m.get(U16, 6));
        int count = m.get(U32, 16);
        int cap = m.get(U32, 20);
        if (kind != expected) {
            throw new ThinException(where + ": node belongs to a " + kind + " tree");
        }
        if ((flags != LEAF && flags != INTERNAL) || cap != capacity || count < 0 || count > cap) {
            throw new ThinException(where + ": bad node header (flags " + flags + ", " + count + "/" + cap + " entries)");
        }
        Node n = new Node(block, kind, flags == LEAF, cap);
        n.count = count;
        MemorySegment.copy(m, U64, HEADER, n.keys, 0, count);
        MemorySegment.copy(m, U64, HEADER + 8L * cap, n.values, 0, count);
        for (int i = 1; i < count; i++) {
            if (Long.compareUnsigned(n.keys[i - 1], n.keys[i]) >= 0) {
                throw new ThinException(where + ": keys out of order at entry " + i);
            }
        }
        return n;
    }

    @Override
    public String toString() {
        return kind + (leaf ? " leaf " : " internal ") + block + " " + count + "/" + keys.length;
    }
}
