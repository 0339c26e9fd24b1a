package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.dm.MapResult;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One open thin device (the kernel's {@code thin_c}): how its bios reach the pool's data device.
 * Bios arrive cut at data-block boundaries, with offsets inside the thin device.
 *
 * <p>Design notes.
 * <ul>
 *   <li>Fast path (reads, and writes to a mapped block this device alone may write): enter an
 *       I/O epoch, check the virtual block's cell, look the mapping up, remap to the data block.
 *       No cell is taken and nothing is allocated; the epoch is left in {@code endIo}. Reads of
 *       an unmapped block are zeros.
 *   <li>Everything that makes or changes a mapping holds the virtual block's cell: provisioning
 *       (zero the new block, or not if the write covers it, then write, then insert), breaking
 *       sharing (copy the old block unless the write covers it, write, wait for earlier I/O,
 *       insert), unmapping (wait for earlier I/O, pass the discard down if the block was this
 *       mapping's alone, remove). Mappings are inserted only after their data is written, so a
 *       commit never names a block whose data is not on the device (it flushes the data device
 *       first).
 *   <li>A partial discard or write-zeroes zeroes its range (so it reads back as zeros, the
 *       block-device contract); a whole-block one unmaps the block. A FUA write that changed the
 *       metadata completes after the next commit; a flush commits if anything changed.
 * </ul>
 *
 * <p>Size note: over 400 lines because provisioning, breaking sharing and unmapping are one state
 * machine under the virtual block's cell ({@code Change}), whose steps share the cell, the epoch
 * and the allocated block; split apart they would pass all three around.
 */
public final class Thin {

    private final Pool pool;
    private final long dev;
    private final BlockDevice owner;
    private final BlockDevice data;
    private final PoolMetadata metadata;
    private final long blockBytes;
    /** This device's exclusive mappings, shared by every open thin of the same device id. */
    private final MappingCache cache;
    /** True from resume to postsuspend: the device may take writes (create_snap refuses such an origin). */
    private volatile boolean active;

    Thin(Pool pool, long dev, BlockDevice owner, MappingCache cache) {
        this.pool = pool;
        this.cache = cache;
        this.dev = dev;
        this.owner = owner;
        this.data = pool.dataDevice();
        this.metadata = pool.metadata();
        this.blockBytes = pool.blockBytes();
    }

    public long dev() {
        return dev;
    }

    public Pool pool() {
        return pool;
    }

    BlockDevice owner() {
        return owner;
    }

    boolean active() {
        return active;
    }

    public void resumed() {
        active = true;
    }

    public void suspended() {
        active = false;
    }

    /** The target's table is dropped. */
    public void close() {
        active = false;
        pool.closeThin(this);
    }

    /* ---- Mapping ---- */

    /* The fast path reads mappings through {@link MappingCache} (see its notes on staleness). */

    /** Maps one bio (never crossing a data block); the caller carries out the result. */
    public MapResult map(Bio bio) {
        if (pool.mode() == PoolMode.FAIL) {
            return MapResult.IO_ERROR;
        }
        return switch (bio.op()) {
            case READ -> read(bio);
            case WRITE -> write(bio);
            case DISCARD, WRITE_ZEROES -> {
                if (bio.op() == BioOp.DISCARD && !pool.features().discardEnabled()) {
                    yield new MapResult.Completed(IoStatus.NOT_SUPPORTED);
                }
                owned(bio);
                yield MapResult.SUBMITTED;
            }
            case FLUSH -> pool.flush(bio);
        };
    }

    /** Leaves the I/O epoch a fast-path bio entered (a read's in the read epochs). */
    public void endIo(Bio bio) {
        if (bio.context() instanceof Integer epoch) {
            bio.context(null);
            (bio.op() == BioOp.READ ? pool.readEpochs : pool.epochs).exit(epoch);
        }
    }

    private MapResult read(Bio bio) {
        long vb = bio.offset() / blockBytes;
        int epoch = pool.readEpochs.enter();
        if (pool.cells.waitIfHeld(Cells.key(dev, vb), this, bio)) {
            pool.readEpochs.exit(epoch);
            return MapResult.SUBMITTED;
        }
        long r = lookup(vb);
        if (r == PoolMetadata.UNMAPPED) {
            pool.readEpochs.exit(epoch);
            bio.data().fill((byte) 0);
            return MapResult.OK;
        }
        bio.context(epoch);
        return MapResult.remap(data, dataOffset(r & ~PoolMetadata.SHARED, bio));
    }

    private MapResult write(Bio bio) {
        long vb = bio.offset() / blockBytes;
        int epoch = pool.epochs.enter();
        if (pool.cells.waitIfHeld(Cells.key(dev, vb), this, bio)) {
            pool.epochs.exit(epoch);
            return MapResult.SUBMITTED;
        }
        // Only a cached (exclusive) mapping is written here. Anything else takes its cell and is
        // looked up there, once (not here and again under the cell), and without the shared
        // metadata lock on the way in.
        long r = cache.get(vb);
        if (r != MappingCache.MISS) {
            if (!bio.fua() || !metadata.dirty()) {
                bio.context(epoch);
                return MapResult.remap(data, dataOffset(r, bio));
            }
            submitInPlace(bio, r, epoch);
            return MapResult.SUBMITTED;
        }
        pool.epochs.exit(epoch);
        owned(bio);
        return MapResult.SUBMITTED;
    }

    /** The fast path's lookup: the cache, else the B-tree (caching what only this device maps). */
    private long lookup(long vb) {
        long r = cache.get(vb);
        if (r == MappingCache.MISS) {
            r = metadata.find(dev, vb);
            if (r != PoolMetadata.UNMAPPED && (r & PoolMetadata.SHARED) == 0) {
                cache.put(vb, r);
            }
        }
        return r;
    }

    private long dataOffset(long dataBlock, Bio bio) {
        return dataBlock * blockBytes + bio.offset() % blockBytes;
    }

    /** Carries out a map result for a bio this device owns (one that waited in a cell). */
    private void dispatch(Bio bio, MapResult result) {
        switch (result) {
            case MapResult.Remapped r -> {
                r.device().submit(bio.remap(r.offset()));
                bio.endio();
            }
            case MapResult.Completed c -> bio.endio(c.status());
            case MapResult.Submitted s -> { }
            case MapResult.Requeue q -> bio.endio(IoStatus.IO_ERROR);
        }
    }

    /* ---- Under the cell ---- */

    /** A bio that may change the mapping: take the virtual block's cell (or wait in it), then decide. */
    private void owned(Bio bio) {
        long vb = bio.offset() / blockBytes;
        long key = Cells.key(dev, vb);
        if (pool.cells.lockOrWait(key, this, bio)) {
            new Change(bio, vb, key).decide();
        }
    }

    /** One bio's change of one virtual block, holding its cell until {@link #release}. */
    private final class Change {
        private final Bio bio;
        private final long vb;
        private final long key;
        private long newBlock = -1;

        Change(Bio bio, long vb, long key) {
            this.bio = bio;
            this.vb = vb;
            this.key = key;
        }

        private boolean whole() {
            return bio.length() == blockBytes;
        }

        void decide() {
            PoolMode m = pool.mode();
            if (m == PoolMode.FAIL) {
                finish(IoStatus.IO_ERROR);
                return;
            }
            if (bio.op() == BioOp.WRITE && !m.readOnly()) {
                decideWrite();
                return;
            }
            long r = metadata.find(dev, vb);
            boolean mapped = r != PoolMetadata.UNMAPPED;
            boolean shared = mapped && (r & PoolMetadata.SHARED) != 0;
            long block = r & ~PoolMetadata.SHARED;
            BioOp op = bio.op();
            if (op == BioOp.DISCARD || op == BioOp.WRITE_ZEROES) {
                if (!mapped) {
                    finish(IoStatus.OK); // reads of an unmapped block are zeros already
                } else if (whole() && (op == BioOp.WRITE_ZEROES || pool.features().discardEnabled())) {
                    if (m.readOnly()) {
                        finish(IoStatus.IO_ERROR);
                    } else {
                        // Reads and writes that may still use the block, both.
                        pool.readEpochs.afterCurrent(() -> pool.epochs.afterCurrent(() -> unmap(block, shared)));
                    }
                } else if (!shared) {
                    inPlace(block);
                } else {
                    breakSharing(block);
                }
                return;
            }
            if (mapped && !shared) {
                inPlace(block);
            } else {
                finish(IoStatus.IO_ERROR); // a read-only pool: no block to provision, no sharing to break
            }
        }

        /**
         * A write that may need a new block, on a writable pool: the lookup and, for an unmapped
         * or shared block, the allocation in one hold of the metadata lock (not a shared hold,
         * then an exclusive one, each of which may park behind other writers).
         */
        void decideWrite() {
            long released = metadata.reservationsReleased();
            PoolMetadata.Found f = metadata.findForWrite(dev, vb);
            long r = f.mapping();
            if (r != PoolMetadata.UNMAPPED && (r & PoolMetadata.SHARED) == 0) {
                inPlace(r);
            } else if (r == PoolMetadata.UNMAPPED) {
                if (allocated(f.newBlock(), this::provision, released)) {
                    provisionNew();
                }
            } else {
                long old = r & ~PoolMetadata.SHARED;
                if (allocated(f.newBlock(), () -> breakSharing(old), released)) {
                    breakSharingNew(old);
                }
            }
        }

        /** The block is this mapping's alone: cache it, release the cell and send the bio to it. */
        private void inPlace(long block) {
            cache.put(vb, block); // exclusive, and its cell is held: the next write to it takes the fast path
            int epoch = pool.epochs.enter();
            List<Cells.Waiter> waiters = pool.cells.release(key);
            submitInPlace(bio, block, epoch);
            remapWaiters(waiters);
        }

        private boolean allocate(Runnable retry) {
            long released = metadata.reservationsReleased();
            return allocated(metadata.allocate(dev, vb), retry, released);
        }

        /**
         * Takes a block {@link PoolMetadata#allocate} gave, or deals with its refusal (false);
         * {@code released} is {@link PoolMetadata#reservationsReleased} read before it.
         */
        private boolean allocated(long b, Runnable retry, long released) {
            if (b == SpaceMap.NO_DATA_SPACE) {
                pool.outOfDataSpace(retry, this::finish);
                return false;
            }
            if (b == SpaceMap.METADATA_RESERVED) {
                pool.spaceQueue.awaitReservations(retry, released);
                return false;
            }
            if (b == SpaceMap.NO_METADATA_SPACE) {
                if (metadata.failure() != null) {
                    pool.fail(metadata.failure());
                } else {
                    pool.outOfMetadataSpace();
                }
                finish(IoStatus.IO_ERROR);
                return false;
            }
            newBlock = b;
            pool.allocated();
            return true;
        }

        /** An unmapped block: allocate, zero unless the write covers it, write, insert. */
        private void provision() {
            if (allocate(this::provision)) {
                provisionNew();
            }
        }

        private void provisionNew() {
            if (whole() || !pool.features().zeroNewBlocks()) {
                writeNew(this::insert);
                return;
            }
            data.submit(Bio.of(BioOp.WRITE_ZEROES, newBlock * blockBytes, blockBytes, BioFlags.NONE, null, z -> {
                if (z.status().ok()) {
                    writeNew(this::insert);
                } else {
                    abandon(z.status());
                }
            }));
        }

        /**
         * A shared block: allocate, copy unless the write covers it, write, then change the mapping
         * once earlier I/O (which may still read the old block through this mapping) has finished.
         * A block of up to {@link BlockCopy#PIECE} is read into a buffer, the bio's part laid over
         * it, and written whole: one read and one write.
         */
        private void breakSharing(long old) {
            if (allocate(() -> breakSharing(old))) {
                breakSharingNew(old);
            }
        }

        private void breakSharingNew(long old) {
            // Only reads can still be using the old block through this mapping: a write never
            // goes to a shared block (it breaks sharing, under the cell), so the switch-over waits
            // for the read epochs alone (dm-thin's shared_read_ds), not for every write in flight.
            Runnable switchOver = () -> pool.readEpochs.afterCurrent(this::insert);
            if (whole() && bio.op() == BioOp.WRITE) {
                writeNew(switchOver);
            } else if (pool.buffers != null) {
                copyWithChange(old, switchOver);
            } else {
                BlockCopy.copy(data, old * blockBytes, newBlock * blockBytes, blockBytes, s -> {
                    if (s.ok()) {
                        writeNew(switchOver);
                    } else {
                        abandon(s);
                    }
                });
            }
        }

        private void copyWithChange(long old, Runnable then) {
            MemorySegment buf = pool.buffers.take();
            data.submit(Bio.read(old * blockBytes, buf, r -> {
                if (!r.status().ok()) {
                    pool.buffers.give(buf);
                    abandon(r.status());
                    return;
                }
                long in = bio.offset() % blockBytes;
                if (bio.op() == BioOp.WRITE) {
                    MemorySegment.copy(bio.data(), 0, buf, in, bio.length());
                } else {
                    buf.asSlice(in, bio.length()).fill((byte) 0);
                }
                data.submit(Bio.write(newBlock * blockBytes, buf, BioFlags.NONE, w -> {
                    pool.buffers.give(buf);
                    written(w.status(), then);
                }));
            }));
        }

        /** The bio's own part of the new block: its data, or zeros for a discard or write-zeroes. */
        private void writeNew(Runnable then) {
            long at = newBlock * blockBytes + bio.offset() % blockBytes;
            Bio child = bio.op() == BioOp.WRITE
                    ? bio.derive(BioOp.WRITE, at, bio.length(), 0, BioFlags.NONE, w -> written(w.status(), then))
                    : Bio.of(BioOp.WRITE_ZEROES, at, bio.length(), BioFlags.NONE, null, w -> written(w.status(), then));
            data.submit(child);
        }

        private void written(IoStatus s, Runnable then) {
            if (s.ok()) {
                then.run();
            } else {
                abandon(s);
            }
        }

        private void abandon(IoStatus s) {
            metadata.abandon(newBlock);
            pool.spaceQueue.reservationReleased();
            finish(s);
        }

        private void insert() {
            try {
                metadata.insert(dev, vb, newBlock);
                cache.put(vb, newBlock); // a new mapping is this device's alone until it is snapshotted
            } catch (ThinException e) {
                pool.fail(e.getMessage());
                finish(IoStatus.IO_ERROR);
                return;
            } finally {
                pool.spaceQueue.reservationReleased();
            }
            finishAfterCommitIfFua();
        }

        /** Whole-block discard or write-zeroes: pass a discard down if the block was this mapping's alone, then unmap. */
        private void unmap(long block, boolean shared) {
            cache.forget(vb); // the I/O that could have cached it has drained (afterCurrent)
            PoolFeatures f = pool.features();
            if (bio.op() == BioOp.DISCARD && f.discardPassdown() && !shared && metadata.exclusive(block)) {
                // Ignored if it fails: a discard only advises. The cell keeps the block ours until it is unmapped.
                data.submit(Bio.of(BioOp.DISCARD, block * blockBytes, blockBytes, BioFlags.NONE, null, d -> removeMapping()));
            } else {
                removeMapping();
            }
        }

        private void removeMapping() {
            try {
                metadata.remove(dev, vb);
            } catch (SpaceMap.OutOfMetadataSpace e) {
                pool.outOfMetadataSpace();
                finish(IoStatus.IO_ERROR);
                return;
            } catch (ThinException e) {
                pool.fail(e.getMessage());
                finish(IoStatus.IO_ERROR);
                return;
            }
            finishAfterCommitIfFua();
        }

        private void finishAfterCommitIfFua() {
            if (!bio.fua()) {
                finish(IoStatus.OK);
                return;
            }
            remapWaiters(pool.cells.release(key));
            pool.commit(bio::endio);
        }

        /** Releases the cell (its waiters are mapped again) and ends the bio. */
        void finish(IoStatus s) {
            List<Cells.Waiter> waiters = pool.cells.release(key);
            bio.endio(s);
            remapWaiters(waiters);
        }
    }

    /** Writes in place to an unshared mapped block; a FUA write after a metadata change completes after a commit. */
    private void submitInPlace(Bio bio, long block, int epoch) {
        boolean commitAfter = bio.fua() && metadata.dirty();
        BioFlags flags = commitAfter ? bio.flags().withFua(false) : bio.flags();
        data.submit(bio.derive(bio.op(), dataOffset(block, bio), bio.length(), 0, flags, c -> {
            pool.epochs.exit(epoch);
            if (!c.status().ok() || !commitAfter) {
                bio.endio(c.status());
            } else {
                pool.commit(bio::endio);
            }
        }));
    }

    private static void remapWaiters(List<Cells.Waiter> waiters) {
        for (Cells.Waiter w : waiters) {
            w.thin().dispatch(w.bio(), w.thin().map(w.bio()));
        }
    }
}
