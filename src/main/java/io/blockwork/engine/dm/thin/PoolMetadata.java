package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.BlockIoException;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A pool's metadata (the kernel's {@code dm_pool_metadata}): thin devices, their mappings, the
 * data space map, the transaction id and a held metadata snapshot, over the B-trees of one
 * metadata device. Pure bookkeeping: the only I/O is reading the device at {@link #open}; commits
 * are prepared here ({@link #prepareCommit}) and written by {@link MetadataWriter}.
 *
 * <p>Design notes.
 * <ul>
 *   <li>Trees, from the superblock: devices (dev id → mapping-tree root), details (dev id →
 *       mapped count and snapshot time), one mapping tree per device (virtual block →
 *       {@link BlockTime}), refcounts (data block → count). A snapshot adds a devices entry naming
 *       the origin's root and one reference to that root: O(1), whatever the device maps.
 *   <li>Every node lives in memory ({@link MetadataSpace}); memory and metadata both grow with
 *       the mappings, not with virtual or data size. Lookups never block.
 *   <li>Space. A change may need fresh metadata blocks (shadowing a path, splitting, copying a
 *       shared leaf adds a reference to each data block it names). Each change reserves an upper
 *       bound first ({@link #bound}) and is refused while the free blocks, less what other
 *       changes in progress hold, cannot cover it, so a change never stops half-way for want of
 *       space. Should one stop anyway, the pool is marked failed (needs_check) and commits stop:
 *       the metadata on disk stays the last committed, consistent state.
 *   <li>Details (mapped counts) change on every provisioning; they are kept in memory and written
 *       into the details tree when a commit is prepared.
 * </ul>
 * One lock: shared for lookups and status, exclusive for every change; never held across I/O.
 *
 * <p>Size note: over 400 lines because every change (map, unmap, snapshot, delete, grow, commit)
 * must reserve its metadata bound and move the refcounts and details under the one lock; the trees
 * and space maps live in their own classes, this is the transaction that ties them.
 */
public final class PoolMetadata {

    /** The kernel's limit on a metadata device (255 * 2^14 * 8 sectors, about 15.9 GiB), in blocks. */
    public static final long MAX_METADATA_BLOCKS = 255L * (1 << 14);
    /** Entries per node in a 4 KiB block. */
    public static final int DEFAULT_NODE_CAPACITY = Node.maxCapacity();
    /** Largest thin device id (24 bits). */
    public static final long MAX_DEV_ID = (1L << 24) - 1;
    /** Largest data device the space map addresses, in blocks. */
    public static final long MAX_DATA_BLOCKS = Integer.MAX_VALUE;

    /** {@link #find}: no mapping. */
    public static final long UNMAPPED = -1;
    /** {@link #find}: set in the result when the block may be shared and must be copied before a write. */
    public static final long SHARED = 1L << 62;

    /** {@link #allocate}: no free data block. */
    public static final long NO_DATA_SPACE = -1;
    /** {@link #allocate}: not enough free metadata to record the mapping. */
    public static final long NO_METADATA_SPACE = -2;
    /**
     * {@link #allocate}: not enough free metadata now, but allocated mappings not inserted yet hold
     * reservations they will give back ({@link #reservationsReleased} moves): wait, then try again.
     */
    public static final long METADATA_RESERVED = -3;

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final BlockDevice device;
    private final int dataBlockSectors;
    private final MetadataSpace space;
    private final BTree tree;
    private final DataSpace data;

    /* Guarded by lock (written under the write lock). */
    private long devicesRoot;
    private long detailsRoot;
    private long heldRoot;
    private long transactionId;
    private int time;
    private long commits;
    private final Map<Long, DeviceDetails> details = new TreeMap<>();
    private final Set<Long> detailsDirty = new HashSet<>();
    private long changes;
    private long durableChanges;
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
    private String failure;
    /**
     * Free data and metadata blocks and the metadata total as of the last allocation or commit,
     * written under the lock and read without it: the low-water checks after each allocation
     * would otherwise take the shared lock once a write ({@link #spaceHint}).
     */
    private volatile SpaceHint spaceHint = new SpaceHint(0, 0, 0);

    private PoolMetadata(BlockDevice device, int dataBlockSectors, MetadataSpace space, long refcountRoot,
                         long dataBlocks) {
        this.device = device;
        this.dataBlockSectors = dataBlockSectors;
        this.space = space;
        this.tree = new BTree(space);
        this.data = new DataSpace(tree, refcountRoot, dataBlocks);
        space.dataRefs(data);
    }

    /* ---- Opening ---- */

    /**
     * Opens the metadata on {@code device} (blocking): a device whose first 4 KiB are zero is
     * formatted (empty pool, no data blocks yet); otherwise the superblock is checked and every
     * committed node read and checked, and the reference counts are rebuilt from them.
     *
     * @param dataBlockSectors the pool's data block size; must match formatted metadata
     * @param nodeCapacity entries per node when formatting (tests use small nodes to grow deep trees)
     * @throws ThinException for unreadable, foreign or damaged metadata, naming what is wrong
     */
    public static PoolMetadata open(BlockDevice device, int dataBlockSectors, int nodeCapacity) throws ThinException {
        long deviceBlocks = Math.min(MAX_METADATA_BLOCKS, device.sizeBytes() >> MetadataBlock.SHIFT);
        if (deviceBlocks < 8) {
            throw new ThinException("metadata device '" + device.name() + "' is too small: "
                    + device.sizeBytes() + " bytes hold fewer than 8 metadata blocks of 4 KiB");
        }
        byte[] head = read(device, 0);
        if (MetadataBlock.allZero(head)) {
            return format(device, dataBlockSectors, nodeCapacity, deviceBlocks);
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
        PoolMetadata pmd = new PoolMetadata(device, dataBlockSectors, new MetadataSpace(sb.nodeCapacity(),
                sb.metadataBlocks()), sb.refcountRoot(), sb.dataBlocks());
        pmd.load(sb);
        return pmd;
    }

    private static PoolMetadata format(BlockDevice device, int dataBlockSectors, int nodeCapacity, long blocks)
            throws ThinException {
        if (nodeCapacity < 3 || nodeCapacity > Node.maxCapacity()) {
            throw new IllegalArgumentException("node capacity must be 3.." + Node.maxCapacity() + ": " + nodeCapacity);
        }
        MetadataSpace space = new MetadataSpace(nodeCapacity, blocks);
        BTree t = new BTree(space);
        long refcounts = t.create(TreeKind.REFCOUNT);
        PoolMetadata pmd = new PoolMetadata(device, dataBlockSectors, space, refcounts, 0);
        pmd.devicesRoot = t.create(TreeKind.DEVICES);
        pmd.detailsRoot = t.create(TreeKind.DETAILS);
        pmd.changes = 1;
        CommitPlan plan = pmd.prepareCommit();
        IoStatus s = MetadataWriter.commit(null, device, plan);
        if (!s.ok()) {
            throw new ThinException("could not format metadata device '" + device.name() + "': " + s);
        }
        pmd.committed(plan);
        return pmd;
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

    /** Reads every node reachable from the superblock once, counting the pointers to each. */
    private void load(Superblock sb) throws ThinException {
        devicesRoot = sb.devicesRoot();
        detailsRoot = sb.detailsRoot();
        heldRoot = sb.heldRoot();
        transactionId = sb.transactionId();
        time = sb.time();
        commits = sb.commit();
        if (sb.needsCheck()) {
            failure = "the superblock says needs_check";
        }
        record Ref(long block, TreeKind kind) {}
        ArrayDeque<Ref> todo = new ArrayDeque<>();
        todo.add(new Ref(devicesRoot, TreeKind.DEVICES));
        todo.add(new Ref(detailsRoot, TreeKind.DETAILS));
        todo.add(new Ref(sb.refcountRoot(), TreeKind.REFCOUNT));
        if (heldRoot != 0) {
            todo.add(new Ref(heldRoot, TreeKind.HELD));
        }
        for (Ref r : todo) {
            checkBlock(r.block, r.kind, "the superblock");
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
                    checkBlock(n.values[i], childKind, "node " + n.block);
                    space.addRef(n.values[i]);
                    todo.add(new Ref(n.values[i], childKind));
                } else if (n.kind == TreeKind.MAPPING && BlockTime.block(n.values[i]) >= sb.dataBlocks()) {
                    throw new ThinException("metadata block " + n.block + " maps virtual block " + n.keys[i]
                            + " to data block " + BlockTime.block(n.values[i]) + ", past the data device's "
                            + sb.dataBlocks() + " blocks");
                }
            }
        }
        data.load();
        tree.forEach(detailsRoot, (dev, packed) -> details.put(dev, DeviceDetails.unpack(packed)));
        durableChanges = changes;
        updateSpaceHint();
    }

    private void checkBlock(long block, TreeKind kind, String from) throws ThinException {
        if (block <= MetadataSpace.SUPERBLOCK || block >= space.blocks()) {
            throw new ThinException(from + " points the " + kind + " tree at metadata block " + block
                    + ", outside 1.." + (space.blocks() - 1));
        }
    }

    /** A change of the metadata: run by {@link #change} under the write lock. */
    @FunctionalInterface
    private interface Change<T> {
        T apply() throws ThinException;
    }

    /**
     * Runs {@code body} under the write lock on a pool that is still writable; running out of
     * metadata space on the way fails the pool ({@link #broken}).
     */
    private <T> T change(Change<T> body) throws ThinException {
        lock.writeLock().lock();
        try {
            checkWritable();
            return body.apply();
        } catch (MetadataSpace.Exhausted e) {
            throw broken(e);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /* ---- Thin devices ---- */

    public void createThin(long dev) throws ThinException {
        change(() -> {
            checkId(dev);
            if (details.containsKey(dev)) {
                throw new ThinException("device id " + dev + " already exists");
            }
            reserveNow(bound());
            devicesRoot = tree.insert(devicesRoot, dev, tree.create(TreeKind.MAPPING));
            details.put(dev, new DeviceDetails(0, 0));
            detailsDirty.add(dev);
            changes++;
            return null;
        });
    }

    /** Snapshot {@code dev} of {@code origin}: O(1), one reference added to the origin's mapping root. */
    public void createSnap(long dev, long origin) throws ThinException {
        change(() -> {
            checkId(dev);
            if (details.containsKey(dev)) {
                throw new ThinException("device id " + dev + " already exists");
            }
            DeviceDetails o = details.get(origin);
            if (o == null) {
                throw new ThinException("origin device id " + origin + " does not exist");
            }
            reserveNow(bound());
            long root = tree.lookup(devicesRoot, origin);
            space.inc(root);
            devicesRoot = tree.insert(devicesRoot, dev, root);
            time = (time + 1) & BlockTime.TIME_MASK;
            details.put(origin, o.snapshottedAt(time));
            details.put(dev, new DeviceDetails(o.mappedBlocks(), time));
            detailsDirty.add(origin);
            detailsDirty.add(dev);
            changes++;
            return null;
        });
    }

    /** Deletes a device; blocks no other device or held snapshot maps are free after the next commit. */
    public void delete(long dev) throws ThinException {
        change(() -> {
            if (!details.containsKey(dev)) {
                throw new ThinException("device id " + dev + " does not exist");
            }
            // Every refcount node may be copied (once) and a sibling merged per level.
            reserveNow(bound() + 2 * space.liveNodes(TreeKind.REFCOUNT));
            devicesRoot = tree.remove(devicesRoot, dev);
            details.remove(dev);
            detailsDirty.add(dev);
            changes++;
            return null;
        });
    }

    public boolean exists(long dev) {
        lock.readLock().lock();
        try {
            return details.containsKey(dev);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Device ids, ascending. */
    public List<Long> devices() {
        lock.readLock().lock();
        try {
            return List.copyOf(details.keySet());
        } finally {
            lock.readLock().unlock();
        }
    }

    public long mappedBlocks(long dev) {
        lock.readLock().lock();
        try {
            DeviceDetails d = details.get(dev);
            return d == null ? 0 : d.mappedBlocks();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The highest mapped virtual block of {@code dev}, or -1 if it maps none. */
    public long highestMapped(long dev) {
        lock.readLock().lock();
        try {
            long root = tree.lookup(devicesRoot, dev);
            return root == BTree.NOT_FOUND ? -1 : tree.lastKey(root);
        } finally {
            lock.readLock().unlock();
        }
    }

    public long transactionId() {
        lock.readLock().lock();
        try {
            return transactionId;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Compare-and-swap of the user's transaction id ({@code set_transaction_id}). */
    public void setTransactionId(long current, long next) throws ThinException {
        lock.writeLock().lock();
        try {
            checkWritable();
            if (transactionId != current) {
                throw new ThinException("mismatched transaction id: the pool's is " + Long.toUnsignedString(transactionId)
                        + ", not " + Long.toUnsignedString(current));
            }
            transactionId = next;
            changes++;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /* ---- Held metadata snapshot ---- */

    /** Holds the current device and details trees for readers ({@code reserve_metadata_snap}); commit first. */
    public void reserveMetadataSnap() throws ThinException {
        change(() -> {
            if (heldRoot != 0) {
                throw new ThinException("a metadata snapshot is already held (block " + heldRoot + ")");
            }
            reserveNow(bound() + 2L * space.liveNodes(TreeKind.DETAILS) + 4);
            writeDetails();
            Node held = space.alloc(TreeKind.HELD, true);
            held.insertAt(0, 0, devicesRoot);
            held.insertAt(1, 1, detailsRoot);
            space.inc(devicesRoot);
            space.inc(detailsRoot);
            heldRoot = held.block;
            changes++;
            return null;
        });
    }

    public void releaseMetadataSnap() throws ThinException {
        change(() -> {
            if (heldRoot == 0) {
                throw new ThinException("no metadata snapshot is held");
            }
            reserveNow(bound() + 2 * space.liveNodes(TreeKind.REFCOUNT));
            space.release(heldRoot);
            heldRoot = 0;
            changes++;
            return null;
        });
    }

    /** The held snapshot's block, 0 for none. */
    public long heldRoot() {
        lock.readLock().lock();
        try {
            return heldRoot;
        } finally {
            lock.readLock().unlock();
        }
    }

    /* ---- Mappings ---- */

    /**
     * Where virtual block {@code vblock} of {@code dev} lives: {@link #UNMAPPED}, or the data block,
     * with {@link #SHARED} set if it must be copied before it is written.
     */
    public long find(long dev, long vblock) {
        lock.readLock().lock();
        try {
            return findLocked(dev, vblock);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Virtual blocks that are all mapped or all unmapped, as {@link #runAt} finds them. */
    public record Run(boolean mapped, long blocks) {}

    /** Mapped blocks counted in one hold of the lock, at most: a long run is asked for again. */
    private static final long RUN_PER_HOLD = 1024;

    /**
     * From {@code vblock} on, up to {@code maxBlocks} virtual blocks of {@code dev} that are all
     * mapped or all unmapped (BLOCK_STATUS: an unmapped block reads as zeros). An unmapped run is
     * found with one walk of the tree; a mapped one block by block, at most {@value #RUN_PER_HOLD}
     * a call, so the lock is never held long.
     */
    public Run runAt(long dev, long vblock, long maxBlocks) {
        lock.readLock().lock();
        try {
            long root = tree.lookup(devicesRoot, dev);
            if (root == BTree.NOT_FOUND) {
                return new Run(false, maxBlocks);
            }
            if (tree.lookup(root, vblock) == BTree.NOT_FOUND) {
                long next = tree.ceilingKey(root, vblock);
                return new Run(false, next == BTree.NOT_FOUND ? maxBlocks : Math.min(maxBlocks, next - vblock));
            }
            long n = 1;
            for (long cap = Math.min(maxBlocks, RUN_PER_HOLD); n < cap && tree.lookup(root, vblock + n) != BTree.NOT_FOUND; ) {
                n++;
            }
            return new Run(true, n);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** {@link #findForWrite}'s answer: the mapping as {@link #find} gives it, and a new block or why there is none. */
    public record Found(long mapping, long newBlock) {}

    /**
     * {@link #find}, then {@link #allocate} if the block is unmapped or shared, in one hold of the
     * lock: a write that needs a new block takes the lock once for both. {@code newBlock} is the
     * allocated block, {@link #NO_DATA_SPACE} or {@link #NO_METADATA_SPACE}; when the mapping is
     * this device's alone nothing is allocated and {@code newBlock} means nothing.
     */
    public Found findForWrite(long dev, long vblock) {
        lock.writeLock().lock();
        try {
            long r = findLocked(dev, vblock);
            if (r != UNMAPPED && (r & SHARED) == 0) {
                return new Found(r, UNMAPPED);
            }
            return new Found(r, allocateLocked(dev, vblock));
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Caller holds the lock. */
    private long findLocked(long dev, long vblock) {
        long root = tree.lookup(devicesRoot, dev);
        if (root == BTree.NOT_FOUND) {
            return UNMAPPED;
        }
        long v = tree.lookup(root, vblock);
        if (v == BTree.NOT_FOUND) {
            return UNMAPPED;
        }
        DeviceDetails d = details.get(dev);
        return BlockTime.block(v) | (d != null && d.sharedSince(BlockTime.time(v)) ? SHARED : 0);
    }

    /**
     * Allocates a data block for a new mapping of {@code (dev, vblock)} and reserves the metadata
     * that {@link #insert} will need; returns the block, {@link #NO_DATA_SPACE} or
     * {@link #NO_METADATA_SPACE}. The caller inserts the mapping or gives the block back with
     * {@link #abandon}.
     */
    public long allocate(long dev, long vblock) {
        lock.writeLock().lock();
        try {
            return allocateLocked(dev, vblock);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Caller holds the write lock. */
    private long allocateLocked(long dev, long vblock) {
        try {
            if (failure != null) {
                return NO_METADATA_SPACE;
            }
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
            updateSpaceHint();
            return b;
        } catch (MetadataSpace.Exhausted e) {
            failure = e.getMessage();
            return NO_METADATA_SPACE;
        }
    }

    /** What a new mapping of {@code (dev, vblock)} reserves: its paths and one refcount change, and its cascade. */
    private Reservation newMapping(MappingPath p, long dev, long vblock) {
        return new Reservation(pathsBound(p) + refcountBound(p.refHeight()), cascadeBound(p, dev, vblock, 1));
    }

    /** True if the free metadata covers {@code r} besides what is held already. Caller holds the write lock. */
    private boolean fits(Reservation r, MappingPath p) {
        long heldAfter = reservedBase + r.base()
                + refcountReserve(data.pendingCount(), reservedCascade + r.cascade(), p.refHeight());
        return space.free() - heldAfter - detailsReserve() >= 0;
    }

    /** Gives back a block from {@link #allocate} that will not be mapped (its write failed). */
    public void abandon(long dataBlock) {
        lock.writeLock().lock();
        try {
            unreserve(dataBlock);
            data.release(dataBlock);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Maps {@code (dev, vblock)} to {@code dataBlock} from {@link #allocate}, replacing (and
     * dropping the reference of) any mapping it had.
     */
    public void insert(long dev, long vblock, long dataBlock) throws ThinException {
        lock.writeLock().lock();
        try {
            unreserve(dataBlock);
            if (failure != null) {
                data.release(dataBlock);
                checkWritable();
            }
            BTree.Slot slot = tree.slot(devicesRoot, dev);
            if (slot == null) {
                data.release(dataBlock);
                throw new ThinException("device id " + dev + " does not exist");
            }
            data.record(dataBlock);
            devicesRoot = slot.root();
            long root = slot.value();
            boolean fresh = tree.lookup(root, vblock) == BTree.NOT_FOUND;
            slot.value(tree.insert(root, vblock, BlockTime.pack(dataBlock, time)));
            if (fresh) {
                details.put(dev, details.get(dev).withMapped(1));
                detailsDirty.add(dev);
            }
            changes++;
        } catch (MetadataSpace.Exhausted e) {
            throw broken(e);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Caller holds the write lock. */
    private void unreserve(long dataBlock) {
        Reservation r = reservations.remove(dataBlock);
        if (r != null) {
            reservedBase -= r.base();
            reservedCascade -= r.cascade();
            reservationsReleased++;
        }
    }

    /**
     * How many reservations were given back so far: read before {@link #allocate}, then a write
     * that got {@link #METADATA_RESERVED} knows whether one came back meanwhile (no lost wake-up).
     */
    public long reservationsReleased() {
        return reservationsReleased;
    }

    /** Metadata blocks the allocated-but-not-inserted mappings and the pending counts may still take. Caller holds the lock. */
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

    /** Unmaps {@code (dev, vblock)}; returns false if it was not mapped. */
    public boolean remove(long dev, long vblock) throws ThinException {
        return change(() -> {
            long root = tree.lookup(devicesRoot, dev);
            if (root == BTree.NOT_FOUND || tree.lookup(root, vblock) == BTree.NOT_FOUND) {
                return false;
            }
            // A merge may copy a shared sibling leaf as well as the path's leaf.
            MappingPath p = new MappingPath(tree.height(data.root()), root);
            reserveNow(pathsBound(p) + cascadeBound(p, dev, vblock, 2) + refcountBound(p.refHeight()));
            BTree.Slot slot = tree.slot(devicesRoot, dev);
            devicesRoot = slot.root();
            slot.value(tree.remove(slot.value(), vblock));
            details.put(dev, details.get(dev).withMapped(-1));
            detailsDirty.add(dev);
            changes++;
            return true;
        });
    }

    /** True if {@code dataBlock} has exactly one reference (a discard may pass down to it). */
    public boolean exclusive(long dataBlock) {
        lock.readLock().lock();
        try {
            return data.refcount(dataBlock) == 1;
        } finally {
            lock.readLock().unlock();
        }
    }

    /* ---- Space ---- */

    public int dataBlockSectors() {
        return dataBlockSectors;
    }

    /** Grows the data space to {@code blocks} (a larger pool table); a smaller count is refused. */
    public void resizeData(long blocks) throws ThinException {
        lock.writeLock().lock();
        try {
            if (blocks < data.blocks()) {
                throw new ThinException("pool target (" + blocks + " blocks) too small: expected " + data.blocks());
            }
            if (blocks > MAX_DATA_BLOCKS) {
                throw new ThinException("data device of " + blocks + " blocks is larger than the " + MAX_DATA_BLOCKS
                        + " blocks a pool addresses; use a larger data block size");
            }
            if (blocks > data.blocks()) {
                checkWritable();
                data.resize(blocks);
                changes++;
                updateSpaceHint();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Grows the metadata space to what the device now holds (it was extended); smaller is refused. */
    public void resizeMetadata() throws ThinException {
        long blocks = Math.min(MAX_METADATA_BLOCKS, device.sizeBytes() >> MetadataBlock.SHIFT);
        lock.writeLock().lock();
        try {
            if (blocks < space.blocks()) {
                throw new ThinException("metadata device (" + blocks + " blocks) too small: expected " + space.blocks());
            }
            if (blocks > space.blocks()) {
                checkWritable();
                space.resize(blocks);
                changes++;
                updateSpaceHint();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Numbers for the pool's status line. */
    public record Usage(long transactionId, long usedMetadataBlocks, long metadataBlocks, long usedDataBlocks,
                        long dataBlocks, long heldRoot, boolean needsCheck, long freeDataBlocks) {}

    public Usage usage() {
        lock.readLock().lock();
        try {
            return new Usage(transactionId, space.used(), space.blocks(), data.inUse(), data.blocks(), heldRoot,
                    failure != null, data.free());
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Free space as the last allocation or commit left it (a hint: changes since are not in it). */
    public record SpaceHint(long freeDataBlocks, long freeMetadataBlocks, long metadataBlocks) {}

    /** The space as of the last allocation or commit, without taking the lock. */
    public SpaceHint spaceHint() {
        return spaceHint;
    }

    /** Caller holds the write lock. */
    private void updateSpaceHint() {
        SpaceHint h = spaceHint;
        long freeData = data.free();
        long freeMeta = space.free();
        long metaBlocks = space.blocks();
        if (h.freeDataBlocks() != freeData || h.freeMetadataBlocks() != freeMeta || h.metadataBlocks() != metaBlocks) {
            spaceHint = new SpaceHint(freeData, freeMeta, metaBlocks);
        }
    }

    /** Data blocks freed since the last commit closed: a commit would make them allocatable. */
    public int dataBlocksAwaitingCommit() {
        lock.readLock().lock();
        try {
            return data.freedPending();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Why the metadata stopped taking changes, or null. */
    public String failure() {
        lock.readLock().lock();
        try {
            return failure;
        } finally {
            lock.readLock().unlock();
        }
    }

    /* ---- Commits ---- */

    /** True while changes exist that no durable commit covers. */
    public boolean dirty() {
        lock.readLock().lock();
        try {
            return changes != durableChanges;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Closes the open transaction and encodes what it changed; null once the metadata has failed
     * (nothing more may be committed). A plan without metadata changes only flushes the data.
     */
    CommitPlan prepareCommit() {
        lock.writeLock().lock();
        try {
            if (failure != null) {
                return null;
            }
            writeDetails();
            data.applyPending();
            if (!space.changedSinceClose() && !dataChangedSinceClose() && changes == durableChanges) {
                return CommitPlan.dataOnly(changes);
            }
            MetadataSpace.Closed closed = space.closeTransaction();
            long[] dataFreed = data.closeTransaction();
            commits++;
            Superblock sb = new Superblock(0, space.capacity(), commits, transactionId, dataBlockSectors, time,
                    data.blocks(), space.blocks(), devicesRoot, detailsRoot, data.root(), heldRoot);
            return new CommitPlan(closed.dirty(), sb.encode(), closed.freed(), dataFreed, changes);
        } catch (MetadataSpace.Exhausted e) {
            failure = e.getMessage();
            return null;
        } finally {
            lock.writeLock().unlock();
        }
    }

    private boolean dataChangedSinceClose() {
        return data.freedPending() > 0;
    }

    /** {@code plan}'s superblock is durable: what it freed may be reused. */
    void committed(CommitPlan plan) {
        lock.writeLock().lock();
        try {
            space.durable(plan.metadataFreed());
            data.durable(plan.dataFreed());
            durableChanges = Math.max(durableChanges, plan.changes());
            updateSpaceHint();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** A commit failed: nothing more is committed (the device keeps the last durable state). */
    void commitFailed(IoStatus status) {
        lock.writeLock().lock();
        try {
            if (failure == null) {
                failure = "commit failed: " + status;
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Caller holds the write lock. */
    private void writeDetails() {
        for (Long dev : detailsDirty) {
            DeviceDetails d = details.get(dev);
            detailsRoot = d == null ? tree.remove(detailsRoot, dev) : tree.insert(detailsRoot, dev, d.pack());
        }
        detailsDirty.clear();
    }

    /* ---- Space bounds ---- */

    /**
     * Metadata blocks a change to the devices tree may take: its path shadowed and split, plus the
     * refcount work of one data block. Caller holds the lock.
     */
    private long bound() {
        return bound(tree.height(data.root()));
    }

    private long bound(long refHeight) {
        return 2L * tree.height(devicesRoot) + 2 + refcountBound(refHeight);
    }

    /**
     * What the bounds of one mapping change read, looked up once: the refcount tree's height and
     * the device's mapping root ({@link BTree#NOT_FOUND} for a device without mappings).
     */
    private record MappingPath(long refHeight, long root) {}

    private MappingPath mappingPath(long dev) {
        return new MappingPath(tree.height(data.root()), tree.lookup(devicesRoot, dev));
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
        if (p.root() == BTree.NOT_FOUND || !(tree.pathShared(devicesRoot, dev) || tree.pathShared(p.root(), vblock))) {
            return 0;
        }
        return leaves * Math.min((long) space.capacity() * (p.refHeight() + 1), cascadeCap(p.refHeight()));
    }

    /** What all cascades and pending counts before the next commit may copy: each refcount node once, and a new root path. */
    private long cascadeCap(long refHeight) {
        return space.liveNodes(TreeKind.REFCOUNT) + refHeight + 1;
    }

    /** One refcount change: its path shadowed, a sibling merged or a node split per level, a new root. */
    private static long refcountBound(long refHeight) {
        return 2 * refHeight + 2;
    }

    /** Blocks kept back for writing the details tree at the next commit. */
    private long detailsReserve() {
        return 2 * space.liveNodes(TreeKind.DETAILS) + 2L * detailsDirty.size() + 4;
    }

    /** Refuses a change the free metadata cannot cover. Caller holds the write lock. */
    private void reserveNow(long need) throws ThinException {
        if (space.free() - held() - detailsReserve() < need && data.pendingCount() > 0) {
            data.applyPending(); // gives back the refcount reserve the pending counts held
        }
        if (space.free() - held() - detailsReserve() < need) {
            throw new OutOfMetadataSpace(space.free(), need);
        }
    }

    /** Thrown when a change is refused for want of metadata space. */
    public static final class OutOfMetadataSpace extends ThinException {
        OutOfMetadataSpace(long free, long need) {
            super("out of metadata space: " + free + " blocks free, a change may need " + need);
        }
    }

    private void checkWritable() throws ThinException {
        if (failure != null) {
            throw new ThinException("the pool metadata needs checking (" + failure + "); no changes are accepted");
        }
    }

    private static void checkId(long dev) throws ThinException {
        if (dev < 0 || dev > MAX_DEV_ID) {
            throw new ThinException("device id " + dev + " is outside 0.." + MAX_DEV_ID);
        }
    }

    private ThinException broken(MetadataSpace.Exhausted e) {
        failure = e.getMessage();
        return new ThinException("metadata operation failed: " + e.getMessage() + "; the pool needs checking");
    }

    /* ---- For checks and tests ---- */

    /** Runs {@code r} under the shared lock with the package-private views below consistent. */
    <T> T inspect(java.util.function.Supplier<T> r) {
        lock.writeLock().lock(); // exclusive: the inspection may flush details
        try {
            return r.get();
        } finally {
            lock.writeLock().unlock();
        }
    }

    MetadataSpace space() {
        return space;
    }

    BTree tree() {
        return tree;
    }

    DataSpace data() {
        return data;
    }

    long devicesRoot() {
        return devicesRoot;
    }

    long detailsRootWithChanges() {
        writeDetails();
        return detailsRoot;
    }

    Map<Long, DeviceDetails> detailsMap() {
        return details;
    }

    /** Every mapping of {@code dev}: virtual block → data block, ascending. */
    public Map<Long, Long> mappings(long dev) {
        lock.readLock().lock();
        try {
            Map<Long, Long> out = new TreeMap<>();
            long root = tree.lookup(devicesRoot, dev);
            if (root != BTree.NOT_FOUND) {
                tree.forEach(root, (v, bt) -> out.put(v, BlockTime.block(bt)));
            }
            return out;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The stored reference count of a data block. */
    public long refcount(long dataBlock) {
        lock.readLock().lock();
        try {
            return data.refcount(dataBlock);
        } finally {
            lock.readLock().unlock();
        }
    }
}
