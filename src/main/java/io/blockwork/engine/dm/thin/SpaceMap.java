package io.blockwork.engine.dm.thin;

import java.util.HashMap;
import java.util.Map;

/**
 * The pool's space (dm-space-map's part of dm-thin-metadata): the data blocks ({@link DataSpace})
 * and the metadata blocks ({@link MetadataSpace}), and what changes in progress hold of the
 * free metadata. Allocating a data block for a new mapping reserves the metadata its insert will
 * need; every other change reserves its bound at once ({@link #reserveNow}) and is refused while
 * the free blocks, less what the others hold, cannot cover it, so that no change stops half-way.
 *
 * <p>The bounds: a change of one tree path shadows each node on it and may split one a level
 * and add a root; a change of one data block's count does the same in the refcount tree; a
 * copied shared leaf adds a reference to each data block it names, which touches each refcount
 * node at most once before the next commit (the cascade cap, shared by all cascades and the
 * pending counts of {@link DataSpace#applyPending}); the details tree's next write is kept back.
 *
 * <p>Not thread-safe: {@link PoolMetadata} calls it under its lock, exclusive for every change;
 * the two volatile fields are written under it and read without it.
 */
final class SpaceMap {

    /** Largest data device the space map addresses, in blocks. */
    static final long MAX_DATA_BLOCKS = Integer.MAX_VALUE;

    /** {@link #allocate}: no free data block. */
    static final long NO_DATA_SPACE = -1;
    /** {@link #allocate}: not enough free metadata to record the mapping. */
    static final long NO_METADATA_SPACE = -2;
    /**
     * {@link #allocate}: not enough free metadata now, but allocated mappings not inserted yet hold
     * reservations they will give back ({@link #reservationsReleased} moves): wait, then try again.
     */
    static final long METADATA_RESERVED = -3;

    /** Free space as the last allocation or commit left it (a hint: changes since are not in it). */
    record Hint(long freeDataBlocks, long freeMetadataBlocks, long metadataBlocks) {}

    /** Thrown when a change is refused for want of metadata space. */
    static final class OutOfMetadataSpace extends ThinException {
        OutOfMetadataSpace(long free, long need) {
            super("out of metadata space: " + free + " blocks free, a change may need " + need);
        }
    }

    private final MetadataSpace nodes;
    private final DataSpace data;
    private final BTree tree;
    private final MappingTree mappings;
    private final DeviceCatalogue catalogue;

    /**
     * Metadata held for a mapping allocated and not yet inserted: its paths, and the references a
     * shared leaf copied on the way adds ({@code cascade}). All cascades together copy each
     * refcount node at most once before the next commit, so their sum is capped ({@link #held}).
     */
    private record Reservation(long base, long cascade) {}

    /** By data block. */
    private final Map<Long, Reservation> reservations = new HashMap<>();
    private long reservedBase;
    private long reservedCascade;
    /** Written under the write lock, read without it ({@link #reservationsReleased}). */
    private volatile long reservationsReleased;
    /**
     * Free data and metadata blocks and the metadata total as of the last allocation or commit,
     * written under the lock and read without it: the low-water checks after each allocation
     * would otherwise take the shared lock once a write ({@link #hint}).
     */
    private volatile Hint hint = new Hint(0, 0, 0);

    SpaceMap(MetadataSpace nodes, DataSpace data, BTree tree, MappingTree mappings, DeviceCatalogue catalogue) {
        this.nodes = nodes;
        this.data = data;
        this.tree = tree;
        this.mappings = mappings;
        this.catalogue = catalogue;
    }

    /* ---- Mappings being made ---- */

    /**
     * Allocates a data block for a new mapping of {@code (dev, vblock)} and reserves the metadata
     * its insert will need: the block, {@link #NO_DATA_SPACE},
     * {@link #NO_METADATA_SPACE} or {@link #METADATA_RESERVED}.
     */
    long allocate(long dev, long vblock) {
        // runs under the exclusive lock for every write that provisions or breaks sharing:
        // the trees' heights and the device's root are looked up once (MappingPath)
        MappingPath p = mappingPath(dev);
        Reservation r = newMapping(p, dev, vblock);
        if (!fits(r, p) && data.pendingCount() > 0) {
            // The refcount reserve holds a copy of the whole refcount tree while counts are
            // pending; writing them now gives back what they do not take.
            data.applyPending();
            p = mappingPath(dev);
            r = newMapping(p, dev, vblock);
        }
        if (!fits(r, p)) {
            // Reservations are worst cases: hundreds of writes in flight may hold more than is
            // free although their inserts will use little of it. Only with none held is it full.
            return reservations.isEmpty() ? NO_METADATA_SPACE : METADATA_RESERVED;
        }
        long b = data.alloc();
        if (b < 0) {
            return NO_DATA_SPACE;
        }
        reservations.put(b, r);
        reservedBase += r.base();
        reservedCascade += r.cascade();
        updateHint();
        return b;
    }

    /** What a new mapping of {@code (dev, vblock)} reserves: its paths and one refcount change, and its cascade. */
    private Reservation newMapping(MappingPath p, long dev, long vblock) {
        return new Reservation(pathsBound(p) + refcountBound(p.refHeight()), cascadeBound(p, dev, vblock, 1));
    }

    /** True if the free metadata covers {@code r} besides what is held already. */
    private boolean fits(Reservation r, MappingPath p) {
        long heldAfter = reservedBase + r.base()
                + refcountReserve(data.pendingCount(), reservedCascade + r.cascade(), p.refHeight());
        return nodes.free() - heldAfter - detailsReserve() >= 0;
    }

    /** The mapping of {@code dataBlock} from {@link #allocate} is being inserted, or given up: its reservation comes back. */
    void unreserve(long dataBlock) {
        Reservation r = reservations.remove(dataBlock);
        if (r != null) {
            reservedBase -= r.base();
            reservedCascade -= r.cascade();
            reservationsReleased++;
        }
    }

    /** Gives back a block from {@link #allocate} that will not be mapped. */
    void abandon(long dataBlock) {
        unreserve(dataBlock);
        data.release(dataBlock);
    }

    /** How many reservations were given back so far (read without the lock). */
    long reservationsReleased() {
        return reservationsReleased;
    }

    /* ---- Other changes ---- */

    /** Reserves for a change of the devices tree (a new device or snapshot). */
    void reserveDeviceChange() throws ThinException {
        reserveNow(bound());
    }

    /** Reserves for dropping a tree (a device, a held snapshot): every refcount node may be copied once and a sibling merged per level. */
    void reserveRelease() throws ThinException {
        reserveNow(bound() + 2 * nodes.liveNodes(TreeKind.REFCOUNT));
    }

    /** Reserves for holding a metadata snapshot: the details tree written first, and the held node. */
    void reserveHold() throws ThinException {
        reserveNow(bound() + 2L * nodes.liveNodes(TreeKind.DETAILS) + 4);
    }

    /** Reserves for unmapping {@code vblock} of {@code dev}, whose mapping tree is at {@code deviceRoot}. */
    void reserveUnmap(long dev, long deviceRoot, long vblock) throws ThinException {
        // A merge may copy a shared sibling leaf as well as the path's leaf.
        MappingPath p = new MappingPath(tree.height(data.root()), deviceRoot);
        reserveNow(pathsBound(p) + cascadeBound(p, dev, vblock, 2) + refcountBound(p.refHeight()));
    }

    /** Refuses a change the free metadata cannot cover. */
    private void reserveNow(long need) throws ThinException {
        if (nodes.free() - held() - detailsReserve() < need && data.pendingCount() > 0) {
            data.applyPending(); // gives back the refcount reserve the pending counts held
        }
        if (nodes.free() - held() - detailsReserve() < need) {
            throw new OutOfMetadataSpace(nodes.free(), need);
        }
    }

    /* ---- Growing, and the hint ---- */

    /**
     * True if {@code blocks} grows the data space; refuses fewer blocks than it has, or more than
     * a pool addresses.
     */
    boolean growsData(long blocks) throws ThinException {
        if (blocks < data.blocks()) {
            throw new ThinException("pool target (" + blocks + " blocks) too small: expected " + data.blocks());
        }
        if (blocks > MAX_DATA_BLOCKS) {
            throw new ThinException("data device of " + blocks + " blocks is larger than the " + MAX_DATA_BLOCKS
                    + " blocks a pool addresses; use a larger data block size");
        }
        return blocks > data.blocks();
    }

    void resizeData(long blocks) {
        data.resize(blocks);
        updateHint();
    }

    /** True if {@code blocks} grows the metadata space; refuses fewer blocks than it has. */
    boolean growsMetadata(long blocks) throws ThinException {
        if (blocks < nodes.blocks()) {
            throw new ThinException("metadata device (" + blocks + " blocks) too small: expected " + nodes.blocks());
        }
        return blocks > nodes.blocks();
    }

    void resizeMetadata(long blocks) {
        nodes.resize(blocks);
        updateHint();
    }

    /** The space as of the last allocation or commit (read without the lock). */
    Hint hint() {
        return hint;
    }

    void updateHint() {
        Hint h = hint;
        long freeData = data.free();
        long freeMeta = nodes.free();
        long metaBlocks = nodes.blocks();
        if (h.freeDataBlocks() != freeData || h.freeMetadataBlocks() != freeMeta || h.metadataBlocks() != metaBlocks) {
            hint = new Hint(freeData, freeMeta, metaBlocks);
        }
    }

    /* ---- Bounds ---- */

    /** Metadata blocks the allocated-but-not-inserted mappings and the pending counts may still take. */
    private long held() {
        return reservedBase + refcountReserve(data.pendingCount(), reservedCascade, tree.height(data.root()));
    }

    /**
     * Metadata blocks the refcount tree may still take for the counts changed in memory and not
     * yet written ({@link DataSpace#applyPending}) and for the cascades of the mappings being
     * made: writing pending counts updates or removes entries and never splits, so all of them
     * together shadow each refcount node at most once a transaction (the cascade cap); with
     * nothing pending, the cascades' own bounds, capped alike.
     */
    private long refcountReserve(int pending, long cascades, long refHeight) {
        long cap = cascadeCap(refHeight);
        return pending > 0 ? cap : Math.min(cascades, cap);
    }

    /**
     * Metadata blocks a change to the devices tree may take: its path shadowed and split, plus the
     * refcount work of one data block.
     */
    private long bound() {
        return bound(tree.height(data.root()));
    }

    private long bound(long refHeight) {
        return 2L * mappings.height() + 2 + refcountBound(refHeight);
    }

    /**
     * What the bounds of one mapping change read, looked up once: the refcount tree's height and
     * the device's mapping root ({@link BTree#NOT_FOUND} for a device without mappings).
     */
    private record MappingPath(long refHeight, long root) {}

    private MappingPath mappingPath(long dev) {
        return new MappingPath(tree.height(data.root()), mappings.deviceRoot(dev));
    }

    /** Metadata blocks a change of a mapping takes for its paths: the devices and mapping paths shadowed and split. */
    private long pathsBound(MappingPath p) {
        long b = bound(p.refHeight());
        return p.root() == BTree.NOT_FOUND ? b : b + 2L * tree.height(p.root()) + 2;
    }

    /**
     * Metadata blocks copying {@code leaves} shared mapping leaves on the way to
     * {@code (dev, vblock)} may take: if a node on the devices or mapping path has other
     * references (a snapshot, a held root), each entry of a copied leaf gains a reference, which
     * touches at most every refcount node once. 0 if nothing on the path is shared.
     */
    private long cascadeBound(MappingPath p, long dev, long vblock, int leaves) {
        if (p.root() == BTree.NOT_FOUND || !mappings.pathShared(dev, p.root(), vblock)) {
            return 0;
        }
        return leaves * Math.min((long) nodes.capacity() * (p.refHeight() + 1), cascadeCap(p.refHeight()));
    }

    /** What all cascades and pending counts before the next commit may copy: each refcount node once, and a new root path. */
    private long cascadeCap(long refHeight) {
        return nodes.liveNodes(TreeKind.REFCOUNT) + refHeight + 1;
    }

    /** One refcount change: its path shadowed, a sibling merged or a node split per level, a new root. */
    private static long refcountBound(long refHeight) {
        return 2 * refHeight + 2;
    }

    /** Blocks kept back for writing the details tree at the next commit. */
    private long detailsReserve() {
        return 2 * nodes.liveNodes(TreeKind.DETAILS) + 2L * catalogue.changedCount() + 4;
    }
}
