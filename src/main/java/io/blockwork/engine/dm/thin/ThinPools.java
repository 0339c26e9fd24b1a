package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeadlineScheduler;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How thin targets find their pool (the kernel's {@code dm_thin_pool_table}): pools by the mapped
 * device their thin-pool target belongs to, and by metadata device. A pool lives while a
 * thin-pool or thin target holds it: a reloaded pool table finds the pool already open instead of
 * reading the metadata again, and the last target to let go closes it (a final commit).
 *
 * <p>Management only (table loads and removals): every method takes this object's monitor, and
 * opening or closing a pool (blocking metadata I/O) happens under it.
 */
public final class ThinPools {

    /** Guarded by this. */
    private final Map<BlockDevice, Pool> byPoolDevice = new IdentityHashMap<>();
    /** Guarded by this: how many targets hold each pool. */
    private final Map<Pool, Integer> holders = new IdentityHashMap<>();

    /**
     * The pool of the thin-pool target being built for {@code self}: the open one if the table is
     * reloaded, else a new one over the metadata (read, or formatted when its first block is zero).
     */
    public synchronized Pool attach(BlockDevice self, BlockDevice metadata, BlockDevice data, int blockSectors,
                                    ThinConfig config, DeadlineScheduler timer) throws ThinException {
        for (Pool p : byPoolDevice.values()) {
            if (p.metadataDevice() == metadata) {
                if (p.poolDevice() != self) {
                    throw new ThinException("metadata device already in use by a pool ('" + p.poolDevice().name() + "')");
                }
                if (p.dataDevice() != data) {
                    throw new ThinException("data device already in use by a pool");
                }
                return hold(p);
            }
        }
        Pool p = byPoolDevice.get(self);
        if (p != null) {
            throw new ThinException("different pool cannot replace a pool (the pool of '" + self.name()
                    + "' uses metadata device '" + p.metadataDevice().name() + "' and data device '"
                    + p.dataDevice().name() + "')");
        }
        for (Pool other : byPoolDevice.values()) {
            if (other.dataDevice() == data) {
                throw new ThinException("data device already in use by a pool ('" + other.poolDevice().name() + "')");
            }
        }
        p = Pool.open(self, metadata, data, blockSectors, config, timer);
        byPoolDevice.put(self, p);
        return hold(p);
    }

    /** The pool of thin-pool device {@code poolDevice}, held for a thin target; empty if there is none. */
    public synchronized Optional<Pool> attachThin(BlockDevice poolDevice) {
        Pool p = byPoolDevice.get(poolDevice);
        return p == null ? Optional.empty() : Optional.of(hold(p));
    }

    /** The pool of {@code poolDevice}, without holding it (status readers). */
    public synchronized Optional<Pool> find(BlockDevice poolDevice) {
        return Optional.ofNullable(byPoolDevice.get(poolDevice));
    }

    /** A target lets go; the last one closes the pool. */
    public synchronized void detach(Pool p) {
        int n = holders.merge(p, -1, Integer::sum);
        if (n == 0) {
            holders.remove(p);
            byPoolDevice.remove(p.poolDevice());
            p.close();
        }
    }

    /** Caller holds the monitor. */
    private Pool hold(Pool p) {
        holders.merge(p, 1, Integer::sum);
        return p;
    }
}
