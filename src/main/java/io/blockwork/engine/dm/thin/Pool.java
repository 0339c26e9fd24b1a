package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeadlineScheduler;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.dm.MapResult;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A thin pool at run time (the kernel's {@code struct pool}): its metadata, its data device, the
 * machinery its thin devices share (cells, I/O epochs, the commit worker, the writes waiting for
 * space in {@link SpaceQueue}), its mode, and the messages ({@link PoolMessage}) that create,
 * snapshot and delete thin devices.
 *
 * <p>Design notes.
 * <ul>
 *   <li>Commits run on one worker thread per pool, in order, one at a time. A request (a flush,
 *       a FUA write that changed metadata, a message, the 1 s timer) is served by a commit that
 *       starts after it arrived, so concurrent flushes share one commit (group commit) and none
 *       is satisfied by a commit that began before it.
 *   <li>The I/O path never waits for the worker: mapping, provisioning and breaking sharing run
 *       on the submitting and completing threads, with the metadata lock held only for in-memory
 *       work. Only flushes (and FUA writes after a metadata change) wait for a commit.
 *   <li>Out of data space: a write that needs a block queues (bounded by the no-space timeout,
 *       then fails with NO_SPACE and the pool errors further such writes until it grows) or, with
 *       {@code error_if_no_space}, fails at once. Blocks freed by discards become allocatable at
 *       the next commit, so a queued write first asks for one.
 *   <li>Events (dm's table event) on the low-water mark, the metadata low-water mark and mode
 *       changes, through the bound thin-pool target.
 * </ul>
 * Locks: {@link #commitLock} (commit requests) is a leaf, as is {@link SpaceQueue}'s; the monitor
 * of this object guards the open thin devices (management only).
 *
 * <p>Size note: over 400 lines because the pool is dm-thin's {@code struct pool} in one place: its
 * lifecycle, modes, commit worker and out-of-space policy share the same state and events, and
 * splitting them would spread the mode transitions the kernel keeps together (the queues of
 * waiting writes and the message parsing are apart: {@link SpaceQueue}, {@link PoolMessage}).
 */
public final class Pool {

    private static final System.Logger LOG = System.getLogger(Pool.class.getName());

    private final BlockDevice poolDevice;
    private final BlockDevice metadataDevice;
    private final BlockDevice dataDevice;
    private final PoolMetadata metadata;
    private final long blockBytes;
    private final ThinConfig config;
    private final DeadlineScheduler timer;
    final Cells cells = new Cells();
    /**
     * Epochs of the writes sent to data blocks. Reads have their own ({@link #readEpochs}): an
     * unmap waits for both, breaking sharing for the reads alone (no write goes to a shared
     * block), as dm-thin's {@code all_io_ds} and {@code shared_read_ds}.
     */
    final IoEpochs epochs = new IoEpochs();
    /** Epochs of the reads sent to data blocks. */
    final IoEpochs readEpochs = new IoEpochs();
    /** Buffers for copying a shared block (null when blocks are too large to copy in one piece). */
    final BlockBuffers buffers;
    /** Writes waiting for data space or for metadata reservations to come back. */
    final SpaceQueue spaceQueue;

    private volatile PoolMode mode = PoolMode.WRITE;
    private volatile PoolFeatures features = PoolFeatures.DEFAULT;
    private volatile long lowWaterBlocks;
    private volatile Runnable event = () -> { };
    private volatile boolean suspended = true;
    private volatile boolean closed;
    /** The thin-pool target whose table is live (bound at its preresume). */
    private volatile Object boundTarget;
    /** A thin-pool target has been bound at least once (its features apply). */
    private volatile boolean boundOnce;
    private final AtomicBoolean lowWaterTriggered = new AtomicBoolean();
    private final AtomicBoolean metadataLowTriggered = new AtomicBoolean();

    private final ReentrantLock commitLock = new ReentrantLock();
    private final Condition commitWanted = commitLock.newCondition();
    /** Guarded by {@link #commitLock}: callbacks of the next commit. */
    private List<Consumer<IoStatus>> commitWaiters = new ArrayList<>();
    /** Guarded by {@link #commitLock}: a commit without waiters was asked for (the timer). */
    private boolean commitRequested;
    private final Thread worker;

    /** Guarded by this: the open thin devices by id. */
    private final Map<Long, List<Thin>> thins = new HashMap<>();
    /** Guarded by this: the mapping cache of each open thin device id, shared by its open thins. */
    private final Map<Long, MappingCache> caches = new HashMap<>();

    private Pool(BlockDevice poolDevice, BlockDevice metadataDevice, BlockDevice dataDevice, PoolMetadata metadata,
                 ThinConfig config, DeadlineScheduler timer) {
        this.poolDevice = poolDevice;
        this.metadataDevice = metadataDevice;
        this.dataDevice = dataDevice;
        this.metadata = metadata;
        this.blockBytes = (long) metadata.dataBlockSectors() << 9;
        this.config = config;
        this.timer = timer;
        this.buffers = blockBytes <= BlockCopy.PIECE ? new BlockBuffers((int) blockBytes) : null;
        this.spaceQueue = new SpaceQueue(metadata);
        if (metadata.failure() != null) {
            mode = PoolMode.FAIL;
        }
        this.worker = Thread.ofPlatform().name("thin-pool-" + poolDevice.name()).daemon(true).unstarted(this::work);
    }

    /** Opens (or formats) the metadata and starts the pool's worker. Blocking. */
    static Pool open(BlockDevice poolDevice, BlockDevice metadataDevice, BlockDevice dataDevice, int blockSectors,
                     ThinConfig config, DeadlineScheduler timer) throws ThinException {
        PoolMetadata pmd = PoolMetadata.open(metadataDevice, blockSectors, config.nodeCapacity());
        Pool p = new Pool(poolDevice, metadataDevice, dataDevice, pmd, config, timer);
        p.worker.start();
        p.scheduleTick();
        return p;
    }

    /* ---- Identity ---- */

    public BlockDevice poolDevice() {
        return poolDevice;
    }

    public BlockDevice metadataDevice() {
        return metadataDevice;
    }

    public BlockDevice dataDevice() {
        return dataDevice;
    }

    public PoolMetadata metadata() {
        return metadata;
    }

    public long blockBytes() {
        return blockBytes;
    }

    public PoolMode mode() {
        return mode;
    }

    public PoolFeatures features() {
        return features;
    }

    /* ---- The thin-pool target's lifecycle ---- */

    /**
     * The pool's table becomes live ({@code pool_preresume}): its features and low-water mark
     * apply, and the data and metadata spaces grow to what the devices now hold (online growth).
     *
     * @throws ThinException if the table's data area is smaller than the metadata records
     */
    public void bind(Object target, PoolFeatures requested, long lowWater, long dataSectors, Runnable onEvent)
            throws ThinException {
        boundTarget = target;
        boundOnce = true;
        event = onEvent;
        features = requested;
        lowWaterBlocks = lowWater;
        long before = metadata.usage().dataBlocks();
        long beforeMeta = metadata.usage().metadataBlocks();
        if (mode != PoolMode.FAIL) {
            metadata.resizeData(dataSectors / metadata.dataBlockSectors());
            metadata.resizeMetadata();
            PoolMetadata.Usage u = metadata.usage();
            if (u.dataBlocks() != before || u.metadataBlocks() != beforeMeta) {
                LOG.log(Level.INFO, "{0}: data {1} -> {2} blocks, metadata {3} -> {4} blocks", poolDevice.name(),
                        before, u.dataBlocks(), beforeMeta, u.metadataBlocks());
                commitAndWait();
            }
            setMode(requested.readOnly() ? PoolMode.READ_ONLY : PoolMode.WRITE);
        }
    }

    /** The pool's table is live and I/O flows ({@code pool_resume}): the low-water event may fire again. */
    public void resume() {
        lowWaterTriggered.set(false);
        metadataLowTriggered.set(false);
        suspended = false;
        retryNoSpace();
    }

    public void presuspend() {
        suspended = true;
    }

    public void presuspendUndo() {
        suspended = false;
    }

    /** The pool device is quiet: commit ({@code pool_postsuspend}). */
    public void postsuspend() {
        commitAndWait();
    }

    public void unbind(Object target) {
        if (boundTarget == target) {
            boundTarget = null;
        }
    }

    public boolean suspended() {
        return suspended;
    }

    /** True once a thin-pool table has been made live over this pool. */
    public boolean boundOnce() {
        return boundOnce;
    }

    /* ---- Thin devices ---- */

    /** Opens thin device {@code dev} for a thin target ({@code dm_pool_open_thin_device}). */
    public synchronized Thin openThin(long dev, BlockDevice owner) throws ThinException {
        if (mode == PoolMode.FAIL) {
            throw new ThinException("Couldn't open thin device, Pool is in fail mode");
        }
        if (!metadata.exists(dev)) {
            throw new ThinException("Couldn't open thin internal device: device id " + dev + " does not exist in pool '"
                    + poolDevice.name() + "'");
        }
        if (suspended) {
            throw new ThinException("Unable to activate thin device while pool is suspended");
        }
        Thin t = new Thin(this, dev, owner, caches.computeIfAbsent(dev, d -> new MappingCache()));
        thins.computeIfAbsent(dev, d -> new ArrayList<>()).add(t);
        return t;
    }

    synchronized void closeThin(Thin t) {
        List<Thin> l = thins.get(t.dev());
        if (l != null && l.remove(t) && l.isEmpty()) {
            thins.remove(t.dev());
            caches.remove(t.dev());
        }
    }

    /* ---- Messages ---- */

    /**
     * Handles a {@code dmsetup message} to the pool and commits; returns the reply ("").
     *
     * @throws ThinException naming what was refused; nothing changed then
     */
    public String message(List<String> argv) throws ThinException {
        PoolMessage.checkGiven(argv);
        if (mode.readOnly()) {
            throw new ThinException("unable to service pool target messages in " + mode.label() + " mode");
        }
        switch (PoolMessage.parse(argv)) {
            case PoolMessage.CreateThin m -> metadata.createThin(m.dev());
            case PoolMessage.CreateSnap m -> {
                checkQuiet(m.origin());
                metadata.createSnap(m.dev(), m.origin());
                forgetMappings(m.origin());
            }
            case PoolMessage.Delete m -> {
                checkClosed(m.dev());
                metadata.delete(m.dev());
            }
            case PoolMessage.SetTransactionId m -> metadata.setTransactionId(m.current(), m.next());
            case PoolMessage.ReserveMetadataSnap m -> {
                commitAndWait();
                metadata.reserveMetadataSnap();
            }
            case PoolMessage.ReleaseMetadataSnap m -> metadata.releaseMetadataSnap();
        }
        IoStatus s = commitAndWait();
        if (!s.ok()) {
            throw new ThinException(argv.getFirst().toLowerCase(Locale.ROOT) + " was applied but its commit failed (" + s + ")");
        }
        return "";
    }

    /** A snapshot's origin must not take writes while its tree is shared out (the kernel asks users to suspend it). */
    private synchronized void checkQuiet(long origin) throws ThinException {
        for (Thin t : thins.getOrDefault(origin, List.of())) {
            if (t.active()) {
                throw new ThinException("origin device id " + origin + " is active in '" + t.owner().name()
                        + "': suspend it before creating a snapshot of it");
            }
        }
    }

    /** {@code origin} was snapshotted: its mappings are shared now, none may be written in place. */
    private synchronized void forgetMappings(long origin) {
        MappingCache c = caches.get(origin);
        if (c != null) {
            c.clear();
        }
    }

    private synchronized void checkClosed(long dev) throws ThinException {
        List<Thin> open = thins.getOrDefault(dev, List.of());
        if (!open.isEmpty()) {
            throw new ThinException("device id " + dev + " is open in '" + open.getFirst().owner().name()
                    + "': remove that device first");
        }
    }

    /* ---- Status ---- */

    /** The thin-pool INFO status line, as the kernel prints it. */
    public String status() {
        PoolMode m = mode;
        if (m == PoolMode.FAIL) {
            return "Fail";
        }
        PoolMetadata.Usage u = metadata.usage();
        PoolFeatures f = features;
        return u.transactionId() + " " + u.usedMetadataBlocks() + "/" + u.metadataBlocks() + " " + u.usedDataBlocks()
                + "/" + u.dataBlocks() + " " + (u.heldRoot() == 0 ? "-" : String.valueOf(u.heldRoot())) + " "
                + m.label() + " " + f.discardLabel() + " " + f.noSpaceLabel() + " "
                + (u.needsCheck() ? "needs_check" : "-") + " " + metadataLowWater(u.metadataBlocks());
    }

    /** The metadata low-water mark: a quarter of the metadata device, at most 1024 blocks (4 MiB). */
    static long metadataLowWater(long metadataBlocks) {
        return Math.min(1024, metadataBlocks / 4);
    }

    /* ---- Commits ---- */

    /** Asks for a commit that starts after this call; {@code done} hears how it went. */
    public void commit(Consumer<IoStatus> done) {
        commitLock.lock();
        try {
            if (closed) {
                done.accept(IoStatus.IO_ERROR);
                return;
            }
            commitWaiters.add(done);
            commitWanted.signal();
        } finally {
            commitLock.unlock();
        }
    }

    /** Commits and waits (management: messages, suspend, resize). */
    public IoStatus commitAndWait() {
        CompletableFuture<IoStatus> f = new CompletableFuture<>();
        commit(f::complete);
        return f.join();
    }

    /** An empty flush to a thin device: straight to the data device when nothing awaits a commit, else after one. */
    MapResult flush(Bio flush) {
        if (mode == PoolMode.FAIL) {
            return MapResult.IO_ERROR;
        }
        if (!metadata.dirty()) {
            return MapResult.remap(dataDevice, 0);
        }
        commit(flush::endio);
        return MapResult.SUBMITTED;
    }

    private void scheduleTick() {
        timer.schedule(config.commitPeriod().toNanos(), () -> {
            if (closed) {
                return;
            }
            if (metadata.dirty()) {
                commitLock.lock();
                try {
                    commitRequested = true;
                    commitWanted.signal();
                } finally {
                    commitLock.unlock();
                }
            }
            scheduleTick();
        });
    }

    private void work() {
        while (true) {
            List<Consumer<IoStatus>> batch;
            commitLock.lock();
            try {
                while (commitWaiters.isEmpty() && !commitRequested && !closed) {
                    commitWanted.awaitUninterruptibly();
                }
                if (closed && commitWaiters.isEmpty() && !commitRequested) {
                    break;
                }
                batch = commitWaiters;
                commitWaiters = new ArrayList<>();
                commitRequested = false;
            } finally {
                commitLock.unlock();
            }
            IoStatus s = commitNow();
            batch.forEach(c -> c.accept(s));
        }
        if (mode != PoolMode.FAIL && !mode.readOnly()) {
            commitNow(); // the pool is closing: what it changed last becomes durable
        }
    }

    private IoStatus commitNow() {
        int freed = metadata.dataBlocksAwaitingCommit();
        CommitPlan plan = metadata.prepareCommit();
        if (plan == null) {
            fail("the metadata needs checking: " + metadata.failure());
            return IoStatus.IO_ERROR;
        }
        IoStatus s = MetadataWriter.commit(dataDevice, metadataDevice, plan);
        if (!s.ok()) {
            if (plan.writesMetadata()) {
                metadata.commitFailed(s);
                fail("metadata commit failed: " + s);
            }
            return s;
        }
        metadata.committed(plan);
        checkMetadataLowWater();
        if (freed > 0) {
            retryNoSpace();
        }
        return IoStatus.OK;
    }

    /* ---- Space ---- */

    /**
     * No data block could be had for a write: queue it (its {@code retry} runs when space may
     * have appeared) until the no-space timeout, or fail it at once with {@code error_if_no_space}.
     */
    void outOfDataSpace(Runnable retry, Consumer<IoStatus> fail) {
        setMode(PoolMode.OUT_OF_DATA_SPACE);
        long timeout = config.noSpaceTimeout().toNanos();
        switch (spaceQueue.queue(retry, fail, () -> features.errorIfNoSpace() || closed, timeout)) {
            case REFUSED -> {
                fail.accept(IoStatus.NO_SPACE);
                return;
            }
            case ARM_TIMEOUT -> timer.schedule(timeout, this::noSpaceTimeout);
            case QUEUED -> { }
        }
        if (metadata.dataBlocksAwaitingCommit() > 0) {
            commit(s -> { }); // discarded blocks become allocatable at the commit; the worker then retries
        }
    }

    /**
     * The timeout passed (dm-thin's {@code do_no_space_timeout}): queued writes fail, and the pool
     * behaves as {@code error_if_no_space} until its table is loaded again (to grow it).
     */
    private void noSpaceTimeout() {
        List<SpaceQueue.Waiting> expired = spaceQueue.expire(() -> features = features.withErrorIfNoSpace(true));
        if (expired.isEmpty()) {
            return;
        }
        LOG.log(Level.WARNING, "{0}: no data space for {1}; failing {2} queued writes",
                poolDevice.name(), config.noSpaceTimeout(), expired.size());
        event.run();
        expired.forEach(w -> w.fail().accept(IoStatus.NO_SPACE));
    }

    /** Writes waiting for data space. */
    int queuedForSpace() {
        return spaceQueue.size();
    }

    /** Runs the queued writes again (the pool grew, or a commit freed blocks). */
    void retryNoSpace() {
        spaceQueue.drain().forEach(w -> w.retry().run());
    }

    /** After an allocation: leave out-of-space mode, and raise the low-water event once. */
    void allocated() {
        if (mode == PoolMode.OUT_OF_DATA_SPACE) {
            setMode(features.readOnly() ? PoolMode.READ_ONLY : PoolMode.WRITE);
        }
        // From the space hint the allocation left, not usage(): no shared lock once a write.
        SpaceMap.Hint h = metadata.spaceHint();
        long lw = lowWaterBlocks;
        if (lw > 0 && h.freeDataBlocks() <= lw && lowWaterTriggered.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "{0}: reached low water mark for data device ({1} blocks): sending event",
                    poolDevice.name(), lw);
            event.run();
        }
        if (h.freeMetadataBlocks() <= metadataLowWater(h.metadataBlocks())) {
            checkMetadataLowWater(); // exact, under the lock (commits check it too)
        }
    }

    private void checkMetadataLowWater() {
        PoolMetadata.Usage u = metadata.usage();
        if (u.metadataBlocks() - u.usedMetadataBlocks() <= metadataLowWater(u.metadataBlocks())
                && metadataLowTriggered.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "{0}: reached low water mark for metadata device: sending event", poolDevice.name());
            event.run();
        }
    }

    /** No metadata space for a change: no more changes until the metadata device grows. */
    void outOfMetadataSpace() {
        setMode(PoolMode.OUT_OF_METADATA_SPACE);
    }

    /** The metadata broke: every I/O fails from now on (the kernel's fail mode). */
    void fail(String why) {
        if (mode != PoolMode.FAIL) {
            LOG.log(Level.ERROR, "{0}: switching pool to fail mode: {1}", poolDevice.name(), why);
        }
        setMode(PoolMode.FAIL);
    }

    private void setMode(PoolMode m) {
        PoolMode old = mode;
        if (old == m || old == PoolMode.FAIL) {
            return;
        }
        mode = m;
        LOG.log(Level.INFO, "{0}: switching pool to {1} mode", poolDevice.name(), m.name().toLowerCase(Locale.ROOT));
        event.run();
    }

    /* ---- Closing ---- */

    /** The last target let go: fail queued writes, commit, stop the worker. */
    void close() {
        List<SpaceQueue.Waiting> dropped = spaceQueue.drain();
        commitLock.lock();
        try {
            closed = true;
            commitWanted.signal();
        } finally {
            commitLock.unlock();
        }
        dropped.forEach(w -> w.fail().accept(IoStatus.IO_ERROR));
        try {
            worker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops the pool as a crash would: no final commit, nothing more written; the devices keep what
     * the last commit made durable. For crash tests: the pool object must not be used afterwards.
     */
    public void abandon() {
        mode = PoolMode.FAIL;
        close();
    }

    @Override
    public String toString() {
        return "Pool[" + poolDevice.name() + "]";
    }
}
