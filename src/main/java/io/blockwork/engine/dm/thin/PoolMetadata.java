package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A pool's metadata (the kernel's {@code dm_pool_metadata}): the transaction that ties the
 * thin devices' details ({@link DeviceCatalogue}), their mappings ({@link MappingTree}) and the
 * space maps with their reservations ({@link SpaceMap}) to one superblock, with the transaction
 * id and a held metadata snapshot, over the B-trees of one metadata device. Pure bookkeeping:
 * the only I/O is reading the device at {@link #open} ({@link MetadataReader}); commits are
 * prepared here ({@link #prepareCommit}) and written by {@link MetadataWriter}.
 *
 * <p>Design notes.
 * <ul>
 *   <li>Trees, from the superblock: devices and one mapping tree per device ({@link MappingTree}),
 *       details ({@link DeviceCatalogue}), refcounts ({@link DataSpace}). Every node lives in
 *       memory ({@link MetadataSpace}), so lookups never block; memory and metadata both grow with
 *       the mappings, not with virtual or data size.
 *   <li>Each change reserves the metadata it may take first ({@link SpaceMap}), so none stops
 *       half-way for want of space. Should one stop anyway, the pool is marked failed
 *       (needs_check) and commits stop: the device keeps the last committed, consistent state.
 * </ul>
 * One lock, {@link #lock}: shared for lookups and status, exclusive for every change; never held
 * across I/O. It guards this class's fields and all the state of the catalogue, the mapping
 * tree, the space maps and the B-trees, none of which is thread-safe on its own.
 *
 * <p>Size note: over 400 lines because this is the one lock's front: each public operation is one
 * hold of it over the catalogue, the mapping tree and the space map together with the
 * transaction's own state (failure, change count, held root); the logic lives in those classes,
 * and split fronts would split the lock's holders.
 */
public final class PoolMetadata {

    /** The kernel's limit on a metadata device (255 * 2^14 * 8 sectors, about 15.9 GiB), in blocks. */
    static final long MAX_METADATA_BLOCKS = 255L * (1 << 14);
    /** Entries per node in a 4 KiB block. */
    public static final int DEFAULT_NODE_CAPACITY = Node.maxCapacity();
    /** Largest thin device id (24 bits). */
    public static final long MAX_DEV_ID = (1L << 24) - 1;

    /** {@link #find}: no mapping. */
    static final long UNMAPPED = -1;
    /** {@link #find}: set in the result when the block may be shared and must be copied before a write. */
    static final long SHARED = 1L << 62;

    /** Guards the fields below and every structure they name (read for lookups, write for changes). */
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final BlockDevice device;
    private final int dataBlockSectors;
    private final MetadataSpace nodes;
    private final BTree tree;
    private final DataSpace data;
    private final DeviceCatalogue catalogue;
    private final MappingTree mappings;
    private final SpaceMap space;

    /* Guarded by lock (written under the write lock). */
    private long heldRoot;
    private long transactionId;
    private long commits;
    private long changes;
    private long durableChanges;
    private String failure;

    private PoolMetadata(BlockDevice device, MetadataSpace nodes, Superblock sb) {
        this.device = device;
        this.dataBlockSectors = sb.dataBlockSectors();
        this.nodes = nodes;
        this.tree = new BTree(nodes);
        this.data = new DataSpace(tree, sb.refcountRoot(), sb.dataBlocks());
        nodes.dataRefs(data);
        this.catalogue = new DeviceCatalogue(tree, sb.detailsRoot(), sb.time());
        this.mappings = new MappingTree(tree, nodes, sb.devicesRoot());
        this.space = new SpaceMap(nodes, data, tree, mappings, catalogue);
        this.heldRoot = sb.heldRoot();
        this.transactionId = sb.transactionId();
        this.commits = sb.commit();
        this.failure = sb.needsCheck() ? "the superblock says needs_check" : null;
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
        Superblock sb = MetadataReader.superblock(device, dataBlockSectors, deviceBlocks);
        if (sb == null) {
            return format(device, dataBlockSectors, nodeCapacity, deviceBlocks);
        }
        MetadataSpace nodes = new MetadataSpace(sb.nodeCapacity(), sb.metadataBlocks());
        MetadataReader.readTrees(device, sb, nodes);
        PoolMetadata pmd = new PoolMetadata(device, nodes, sb);
        pmd.data.load();
        pmd.catalogue.load();
        pmd.durableChanges = pmd.changes;
        pmd.space.updateHint();
        return pmd;
    }

    private static PoolMetadata format(BlockDevice device, int dataBlockSectors, int nodeCapacity, long blocks)
            throws ThinException {
        if (nodeCapacity < 3 || nodeCapacity > Node.maxCapacity()) {
            throw new IllegalArgumentException("node capacity must be 3.." + Node.maxCapacity() + ": " + nodeCapacity);
        }
        MetadataSpace nodes = new MetadataSpace(nodeCapacity, blocks);
        BTree t = new BTree(nodes);
        long refcounts = t.create(TreeKind.REFCOUNT);
        long devices = t.create(TreeKind.DEVICES);
        long details = t.create(TreeKind.DETAILS);
        PoolMetadata pmd = new PoolMetadata(device, nodes,
                new Superblock(0, nodeCapacity, 0, 0, dataBlockSectors, 0, 0, blocks, devices, details, refcounts, 0));
        pmd.changes = 1;
        CommitPlan plan = pmd.prepareCommit();
        IoStatus s = MetadataWriter.commit(null, device, plan);
        if (!s.ok()) {
            throw new ThinException("could not format metadata device '" + device.name() + "': " + s);
        }
        pmd.committed(plan);
        return pmd;
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

    /**
     * Runs {@code r} under the shared lock. The holds a write takes every time ({@link #find},
     * {@link #findForWrite}, {@link #allocate}, {@link #insert}, {@link #dirty}) are written out
     * instead, without a lambda.
     */
    private <T> T read(Supplier<T> r) {
        lock.readLock().lock();
        try {
            return r.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Runs {@code r} under the write lock (bookkeeping that cannot be refused). */
    private void write(Runnable r) {
        lock.writeLock().lock();
        try {
            r.run();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /* ---- Thin devices ---- */

    void createThin(long dev) throws ThinException {
        change(() -> {
            catalogue.checkNew(dev);
            space.reserveDeviceChange();
            mappings.create(dev);
            catalogue.created(dev);
            changes++;
            return null;
        });
    }

    /** Snapshot {@code dev} of {@code origin}: O(1), one reference added to the origin's mapping root. */
    void createSnap(long dev, long origin) throws ThinException {
        change(() -> {
            catalogue.checkNew(dev);
            catalogue.checkOrigin(origin);
            space.reserveDeviceChange();
            mappings.snapshot(dev, origin);
            catalogue.snapshotted(dev, origin);
            changes++;
            return null;
        });
    }

    /** Deletes a device; blocks no other device or held snapshot maps are free after the next commit. */
    void delete(long dev) throws ThinException {
        change(() -> {
            catalogue.checkExists(dev);
            space.reserveRelease();
            mappings.delete(dev);
            catalogue.deleted(dev);
            changes++;
            return null;
        });
    }

    boolean exists(long dev) {
        return read(() -> catalogue.exists(dev));
    }

    /** Device ids, ascending. */
    public List<Long> devices() {
        return read(catalogue::ids);
    }

    public long mappedBlocks(long dev) {
        return read(() -> catalogue.mappedBlocks(dev));
    }

    /** The highest mapped virtual block of {@code dev}, or -1 if it maps none. */
    public long highestMapped(long dev) {
        return read(() -> mappings.highestMapped(dev));
    }

    public long transactionId() {
        return read(() -> transactionId);
    }

    /** Compare-and-swap of the user's transaction id ({@code set_transaction_id}). */
    void setTransactionId(long current, long next) throws ThinException {
        change(() -> {
            if (transactionId != current) {
                throw new ThinException("mismatched transaction id: the pool's is " + Long.toUnsignedString(transactionId)
                        + ", not " + Long.toUnsignedString(current));
            }
            transactionId = next;
            changes++;
            return null;
        });
    }

    /* ---- Held metadata snapshot ---- */

    /** Holds the current device and details trees for readers ({@code reserve_metadata_snap}); commit first. */
    void reserveMetadataSnap() throws ThinException {
        change(() -> {
            if (heldRoot != 0) {
                throw new ThinException("a metadata snapshot is already held (block " + heldRoot + ")");
            }
            space.reserveHold();
            long details = catalogue.writeChanged();
            Node held = nodes.alloc(TreeKind.HELD, true);
            held.insertAt(0, 0, mappings.root());
            held.insertAt(1, 1, details);
            nodes.inc(mappings.root());
            nodes.inc(details);
            heldRoot = held.block;
            changes++;
            return null;
        });
    }

    void releaseMetadataSnap() throws ThinException {
        change(() -> {
            if (heldRoot == 0) {
                throw new ThinException("no metadata snapshot is held");
            }
            space.reserveRelease();
            nodes.release(heldRoot);
            heldRoot = 0;
            changes++;
            return null;
        });
    }

    /** The held snapshot's block, 0 for none. */
    long heldRoot() {
        return read(() -> heldRoot);
    }

    /* ---- Mappings ---- */

    /**
     * Where virtual block {@code vblock} of {@code dev} lives: {@link #UNMAPPED}, or the data block,
     * with {@link #SHARED} set if it must be copied before it is written.
     */
    long find(long dev, long vblock) {
        lock.readLock().lock();
        try {
            return findLocked(dev, vblock);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Virtual blocks that are all mapped or all unmapped, as {@link #runAt} finds them. */
    public record Run(boolean mapped, long blocks) {}

    /**
     * From {@code vblock} on, up to {@code maxBlocks} virtual blocks of {@code dev} that are all
     * mapped or all unmapped (BLOCK_STATUS: an unmapped block reads as zeros). An unmapped run is
     * found with one walk of the tree; a mapped one block by block, at most
     * {@value MappingTree#RUN_PER_HOLD} a call, so the lock is never held long.
     */
    public Run runAt(long dev, long vblock, long maxBlocks) {
        return read(() -> mappings.runAt(dev, vblock, maxBlocks));
    }

    /** {@link #findForWrite}'s answer: the mapping as {@link #find} gives it, and a new block or why there is none. */
    record Found(long mapping, long newBlock) {}

    /**
     * {@link #find}, then {@link #allocate} if the block is unmapped or shared, in one hold of the
     * lock: a write that needs a new block takes the lock once for both. {@code newBlock} is the
     * allocated block or why there is none, as {@link #allocate} gives it; when the mapping is this
     * device's alone nothing is allocated and {@code newBlock} means nothing.
     */
    Found findForWrite(long dev, long vblock) {
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
        long v = mappings.lookup(dev, vblock);
        if (v == BTree.NOT_FOUND) {
            return UNMAPPED;
        }
        return BlockTime.block(v) | (catalogue.shared(dev, BlockTime.time(v)) ? SHARED : 0);
    }

    /**
     * Allocates a data block for a new mapping of {@code (dev, vblock)} and reserves the metadata
     * that {@link #insert} will need; returns the block, {@link SpaceMap#NO_DATA_SPACE},
     * {@link SpaceMap#NO_METADATA_SPACE} or {@link SpaceMap#METADATA_RESERVED}. The caller inserts
     * the mapping or gives the block back with {@link #abandon}.
     */
    long allocate(long dev, long vblock) {
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
            return failure != null ? SpaceMap.NO_METADATA_SPACE : space.allocate(dev, vblock);
        } catch (MetadataSpace.Exhausted e) {
            failure = e.getMessage();
            return SpaceMap.NO_METADATA_SPACE;
        }
    }

    /** Gives back a block from {@link #allocate} that will not be mapped (its write failed). */
    void abandon(long dataBlock) {
        write(() -> space.abandon(dataBlock));
    }

    /**
     * Maps {@code (dev, vblock)} to {@code dataBlock} from {@link #allocate}, replacing (and
     * dropping the reference of) any mapping it had.
     */
    void insert(long dev, long vblock, long dataBlock) throws ThinException {
        lock.writeLock().lock();
        try {
            space.unreserve(dataBlock);
            if (failure != null) {
                data.release(dataBlock);
                checkWritable();
            }
            BTree.Slot device = mappings.open(dev);
            if (device == null) {
                data.release(dataBlock);
                throw new ThinException("device id " + dev + " does not exist");
            }
            data.record(dataBlock);
            if (mappings.insert(device, vblock, BlockTime.pack(dataBlock, catalogue.time()))) {
                catalogue.mapped(dev, 1);
            }
            changes++;
        } catch (MetadataSpace.Exhausted e) {
            throw broken(e);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * How many reservations were given back so far: read before {@link #allocate}, then a write
     * that got {@link SpaceMap#METADATA_RESERVED} knows whether one came back meanwhile (no lost
     * wake-up).
     */
    long reservationsReleased() {
        return space.reservationsReleased();
    }

    /** Unmaps {@code (dev, vblock)}; returns false if it was not mapped. */
    boolean remove(long dev, long vblock) throws ThinException {
        return change(() -> {
            long root = mappings.deviceRoot(dev);
            if (root == BTree.NOT_FOUND || !mappings.maps(root, vblock)) {
                return false;
            }
            space.reserveUnmap(dev, root, vblock);
            mappings.remove(dev, vblock);
            catalogue.mapped(dev, -1);
            changes++;
            return true;
        });
    }

    /** True if {@code dataBlock} has exactly one reference (a discard may pass down to it). */
    boolean exclusive(long dataBlock) {
        return read(() -> data.refcount(dataBlock) == 1);
    }

    /* ---- Space ---- */

    public int dataBlockSectors() {
        return dataBlockSectors;
    }

    /** Grows the data space to {@code blocks} (a larger pool table); a smaller count is refused. */
    void resizeData(long blocks) throws ThinException {
        grow(() -> space.growsData(blocks), () -> space.resizeData(blocks));
    }

    /** Grows the metadata space to what the device now holds (it was extended); smaller is refused. */
    void resizeMetadata() throws ThinException {
        long blocks = Math.min(MAX_METADATA_BLOCKS, device.sizeBytes() >> MetadataBlock.SHIFT);
        grow(() -> space.growsMetadata(blocks), () -> space.resizeMetadata(blocks));
    }

    /** Runs {@code resize} on a writable pool if {@code grows} (which refuses a shrink) says so; under the write lock. */
    private void grow(Change<Boolean> grows, Runnable resize) throws ThinException {
        lock.writeLock().lock();
        try {
            if (grows.apply()) {
                checkWritable();
                resize.run();
                changes++;
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Numbers for the pool's status line. */
    public record Usage(long transactionId, long usedMetadataBlocks, long metadataBlocks, long usedDataBlocks,
                        long dataBlocks, long heldRoot, boolean needsCheck, long freeDataBlocks) {}

    public Usage usage() {
        return read(() -> new Usage(transactionId, nodes.used(), nodes.blocks(), data.inUse(), data.blocks(), heldRoot,
                failure != null, data.free()));
    }

    /** The space as of the last allocation or commit, without taking the lock. */
    SpaceMap.Hint spaceHint() {
        return space.hint();
    }

    /** Data blocks freed since the last commit closed: a commit would make them allocatable. */
    int dataBlocksAwaitingCommit() {
        return read(data::freedPending);
    }

    /** Why the metadata stopped taking changes, or null. */
    String failure() {
        return read(() -> failure);
    }

    /* ---- Commits ---- */

    /** True while changes exist that no durable commit covers. */
    boolean dirty() {
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
            long details = catalogue.writeChanged();
            data.applyPending();
            if (!nodes.changedSinceClose() && data.freedPending() == 0 && changes == durableChanges) {
                return CommitPlan.dataOnly(changes);
            }
            MetadataSpace.Closed closed = nodes.closeTransaction();
            long[] dataFreed = data.closeTransaction();
            commits++;
            Superblock sb = new Superblock(0, nodes.capacity(), commits, transactionId, dataBlockSectors,
                    catalogue.time(), data.blocks(), nodes.blocks(), mappings.root(), details, data.root(), heldRoot);
            return new CommitPlan(closed.dirty(), sb.encode(), closed.freed(), dataFreed, changes);
        } catch (MetadataSpace.Exhausted e) {
            failure = e.getMessage();
            return null;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** {@code plan}'s superblock is durable: what it freed may be reused. */
    void committed(CommitPlan plan) {
        write(() -> {
            nodes.durable(plan.metadataFreed());
            data.durable(plan.dataFreed());
            durableChanges = Math.max(durableChanges, plan.changes());
            space.updateHint();
        });
    }

    /** A commit failed: nothing more is committed (the device keeps the last durable state). */
    void commitFailed(IoStatus status) {
        write(() -> {
            if (failure == null) {
                failure = "commit failed: " + status;
            }
        });
    }

    private void checkWritable() throws ThinException {
        if (failure != null) {
            throw new ThinException("the pool metadata needs checking (" + failure + "); no changes are accepted");
        }
    }

    private ThinException broken(MetadataSpace.Exhausted e) {
        failure = e.getMessage();
        return new ThinException("metadata operation failed: " + e.getMessage() + "; the pool needs checking");
    }

    /* ---- For checks and tests ---- */

    /** What {@link MetadataCheck} walks, consistent while {@link #inspect} holds the lock. */
    record Parts(MetadataSpace nodes, BTree tree, DataSpace data, MappingTree mappings, DeviceCatalogue catalogue,
                 long heldRoot) {}

    /** Runs {@code check} over the parts under the lock, exclusive: the inspection may write the details. */
    <T> T inspect(Function<Parts, T> check) {
        lock.writeLock().lock();
        try {
            return check.apply(new Parts(nodes, tree, data, mappings, catalogue, heldRoot));
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Every mapping of {@code dev}: virtual block → data block, ascending. */
    public Map<Long, Long> mappings(long dev) {
        return read(() -> mappings.blocks(dev));
    }
}
