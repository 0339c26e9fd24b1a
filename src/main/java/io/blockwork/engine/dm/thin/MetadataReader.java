package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.BlockIoException;
import io.blockwork.engine.block.SyncIo;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Reads a pool's committed metadata when it opens (blocking; {@link MetadataWriter} is the other
 * side): the superblock, checked against what the pool expects, then every node it reaches, once,
 * each checked. Node reference counts are not stored: counting the pointers here gives what the
 * committed trees say, so a crash can never leave them wrong.
 */
final class MetadataReader {

    private MetadataReader() {}

    /**
     * The superblock of {@code device}, or null if its first 4 KiB are zero (to be formatted).
     *
     * @param deviceBlocks the metadata blocks the device holds now
     * @throws ThinException for unreadable or foreign metadata, or one that does not fit the pool
     */
    static Superblock superblock(BlockDevice device, int dataBlockSectors, long deviceBlocks) throws ThinException {
        byte[] head = read(device, 0);
        if (MetadataBlock.allZero(head)) {
            return null;
        }
        Superblock sb = Superblock.decode(head, device.name());
        if (sb.dataBlockSectors() != dataBlockSectors) {
            throw new ThinException("changing the data block size (from " + sb.dataBlockSectors() + " to "
                    + dataBlockSectors + " sectors) is not supported");
        }
        if (sb.metadataBlocks() > deviceBlocks) {
            throw new ThinException("metadata device '" + device.name() + "' (" + deviceBlocks
                    + " blocks) too small: expected " + sb.metadataBlocks());
        }
        if (sb.nodeCapacity() < 3 || sb.nodeCapacity() > Node.maxCapacity()) {
            throw new ThinException("superblock of '" + device.name() + "' names node capacity " + sb.nodeCapacity());
        }
        return sb;
    }

    /** Reads every node reachable from {@code sb} into {@code space} once, counting the pointers to each. */
    static void readTrees(BlockDevice device, Superblock sb, MetadataSpace space) throws ThinException {
        record Ref(long block, TreeKind kind) {}
        ArrayDeque<Ref> todo = new ArrayDeque<>();
        todo.add(new Ref(sb.devicesRoot(), TreeKind.DEVICES));
        todo.add(new Ref(sb.detailsRoot(), TreeKind.DETAILS));
        todo.add(new Ref(sb.refcountRoot(), TreeKind.REFCOUNT));
        if (sb.heldRoot() != 0) {
            todo.add(new Ref(sb.heldRoot(), TreeKind.HELD));
        }
        for (Ref r : todo) {
            checkBlock(space, r.block, r.kind, "the superblock");
            space.addRef(r.block);
        }
        while (!todo.isEmpty()) {
            Ref r = todo.poll();
            if (space.loaded(r.block)) {
                continue;
            }
            Node n = Node.decode(read(device, r.block), r.block, r.kind, space.capacity());
            space.adopt(n);
            for (int i = 0; i < n.count; i++) {
                TreeKind childKind = !n.leaf ? n.kind
                        : n.kind == TreeKind.DEVICES ? TreeKind.MAPPING
                        : n.kind == TreeKind.HELD ? (n.keys[i] == 0 ? TreeKind.DEVICES : TreeKind.DETAILS)
                        : null;
                if (childKind != null) {
                    checkBlock(space, n.values[i], childKind, "node " + n.block);
                    space.addRef(n.values[i]);
                    todo.add(new Ref(n.values[i], childKind));
                } else if (n.kind == TreeKind.MAPPING && BlockTime.block(n.values[i]) >= sb.dataBlocks()) {
                    throw new ThinException("metadata block " + n.block + " maps virtual block " + n.keys[i]
                            + " to data block " + BlockTime.block(n.values[i]) + ", past the data device's "
                            + sb.dataBlocks() + " blocks");
                }
            }
        }
    }

    private static void checkBlock(MetadataSpace space, long block, TreeKind kind, String from) throws ThinException {
        if (block <= MetadataSpace.SUPERBLOCK || block >= space.blocks()) {
            throw new ThinException(from + " points the " + kind + " tree at metadata block " + block
                    + ", outside 1.." + (space.blocks() - 1));
        }
    }

    private static byte[] read(BlockDevice device, long block) throws ThinException {
        byte[] b = new byte[MetadataBlock.SIZE];
        try {
            SyncIo.read(device, block << MetadataBlock.SHIFT, MemorySegment.ofArray(b));
        } catch (BlockIoException e) {
            throw new ThinException("could not read metadata block " + block + " of '" + device.name() + "': "
                    + e.getMessage());
        }
        return b;
    }
}
