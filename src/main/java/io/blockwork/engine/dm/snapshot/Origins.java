package io.blockwork.engine.dm.snapshot;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeadlineScheduler;
import io.blockwork.engine.copy.RegionCopier;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;

/**
 * How origins and snapshots find each other (the kernel's {@code _origins} hash): origins are
 * known by their origin block device, snapshots by their COW device. A snapshot target registers
 * with the origin it names when it is constructed, and an origin target looks its origin up, so
 * either may be created first. One registry serves one engine; it lives in the
 * {@link SnapshotConfig} of the engine's {@code DmConfig}, not in a global, so tests build as
 * many as they like.
 *
 * <p>A snapshot outlives the target that created it when another target takes it over (a
 * snapshot table reloaded, or replaced by {@code snapshot-merge}): the new target attaches to the
 * snapshot already registered for its COW device instead of reading the COW again (the kernel's
 * exception handover), and becomes its owner at preresume, once the old owner is suspended. Only
 * the owner's I/O reaches the snapshot. When the last target lets go, the snapshot is
 * unregistered, its pending exceptions drain and its copier stops.
 */
public final class Origins {

    /** Guards every origin's snapshot list: exclusive to change one, shared while writing to an origin (_origins_lock). */
    final RegistryLock lock = new RegistryLock();
    /**
     * Serialises attaching, claiming and detaching; guards the maps below and the handles'
     * ownership. Held across reading a COW device at table load and across waiting for a closing
     * snapshot to drain, so no I/O path or completion ever takes it.
     */
    final ReentrantLock control = new ReentrantLock();
    /** (and {@link #lock} exclusive when an origin's list changes). */
    @GuardedBy("control")
    private final Map<BlockDevice, Origin> origins = new IdentityHashMap<>();
    /** The registered snapshots by COW device. */
    @GuardedBy("control")
    private final Map<BlockDevice, SnapshotHandle.Shared> byCow = new IdentityHashMap<>();

    /* ---- Origin targets ---- */

    /** The registry entry of {@code device}, created if need be; release it with {@link #detachOrigin}. */
    public Origin attachOrigin(BlockDevice device) {
        control.lock();
        try {
            Origin o = origins.computeIfAbsent(device, d -> new Origin(this, d));
            o.users++;
            return o;
        } finally {
            control.unlock();
        }
    }

    public void detachOrigin(Origin origin) {
        control.lock();
        try {
            release(origin);
        } finally {
            control.unlock();
        }
    }

    @GuardedBy("control")
    private void release(Origin origin) {
        if (--origin.users == 0) {
            origins.remove(origin.device());
        }
    }

    /** The registered origin of {@code device}, if any. */
    public Optional<Origin> origin(BlockDevice device) {
        control.lock();
        try {
            return Optional.ofNullable(origins.get(device));
        } finally {
            control.unlock();
        }
    }

    /* ---- Snapshot targets ---- */

    /**
     * Attaches a snapshot target: to the snapshot already registered for {@code spec.cow()} if
     * there is one (a handover), else to a new snapshot over a store opened on the COW device
     * (a persistent one is read back, blocking).
     *
     * @throws SnapshotException naming what is wrong with the arguments or the COW device
     */
    public SnapshotHandle attachSnapshot(SnapshotSpec spec, SnapshotConfig config, DeadlineScheduler timer)
            throws SnapshotException {
        return attachSnapshot(spec, config, chunkBytes -> ChunkCopier.direct(
                new RegionCopier("snapshot-" + spec.cow().name(), config.copier(chunkBytes), timer)));
    }

    /** As above, with the copier chosen by the caller (model-checking tests copy by hand). */
    SnapshotHandle attachSnapshot(SnapshotSpec spec, SnapshotConfig config, LongFunction<ChunkCopier> copiers)
            throws SnapshotException {
        control.lock();
        try {
            SnapshotHandle.Shared shared = byCow.get(spec.cow());
            if (spec.merge()) {
                checkMergeable(spec, shared == null ? null : shared.snapshot);
            }
            if (shared != null) {
                checkHandover(shared, spec);
                return shared.attach(spec);
            }
            if (spec.origin() == spec.cow()) {
                throw new SnapshotException("the COW device must not be the origin device '" + spec.origin().name() + "'");
            }
            Snapshot s = open(spec, config, copiers);
            Origin o = origins.computeIfAbsent(spec.origin(), d -> new Origin(this, d));
            o.users++;
            lock.lockExclusive();
            try {
                o.snapshots.add(s);
            } finally {
                lock.unlockExclusive();
            }
            shared = new SnapshotHandle.Shared(this, s, o);
            byCow.put(spec.cow(), shared);
            return shared.attach(spec);
        } finally {
            control.unlock();
        }
    }

    private static Snapshot open(SnapshotSpec spec, SnapshotConfig config, LongFunction<ChunkCopier> copiers)
            throws SnapshotException {
        StoreType type = spec.store();
        if (type.persistent()) {
            long[][] log = {new long[64]};
            int[] n = {0};
            PersistentStore store = PersistentStore.open(spec.cow(), type, spec.chunkSectors(), spec.origin(), (o, w) -> {
                if (2 * n[0] + 2 > log[0].length) {
                    log[0] = Arrays.copyOf(log[0], log[0].length * 2);
                }
                log[0][2 * n[0]] = o;
                log[0][2 * n[0] + 1] = w;
                n[0]++;
            });
            return new Snapshot(spec.origin(), spec.cow(), store, store.valid(), log[0], n[0], config.locking(),
                    config.cowThrottleBytes(), copiers.apply(store.chunkSectors() << 9));
        }
        if (spec.chunkSectors() == 0) {
            throw new SnapshotException("Chunk size not set: a transient snapshot needs a chunk size");
        }
        ExceptionStore.checkChunkSize(spec.chunkSectors(), spec.cow(), spec.origin());
        TransientStore store = new TransientStore(spec.cow(), spec.chunkSectors());
        return new Snapshot(spec.origin(), spec.cow(), store, true, new long[0], 0, config.locking(),
                config.cowThrottleBytes(), copiers.apply(spec.chunkSectors() << 9));
    }

    /** Caller holds {@code control}. */
    private static void checkHandover(SnapshotHandle.Shared shared, SnapshotSpec spec) throws SnapshotException {
        Snapshot s = shared.snapshot;
        String cow = "COW device '" + spec.cow().name() + "'";
        if (s.origin() != spec.origin()) {
            throw new SnapshotException(cow + " is in use by a snapshot of origin '" + s.origin().name() + "'");
        }
        if (s.store().type().persistent() != spec.store().persistent()) {
            throw new SnapshotException(cow + " is in use by a " + (s.store().type().persistent() ? "persistent" : "transient")
                    + " snapshot; a handover keeps the store type");
        }
        if (spec.chunkSectors() != 0 && spec.chunkSectors() != s.chunkSectors()) {
            throw new SnapshotException(cow + " is in use by a snapshot with " + s.chunkSectors()
                    + "-sector chunks, not " + spec.chunkSectors());
        }
        if (s.merge() != null && !spec.merge()) {
            throw new SnapshotException("the snapshot on " + cow + " is being merged; only a snapshot-merge target may take it over");
        }
        if (spec.merge() && !s.store().type().persistent()) {
            throw new SnapshotException("Merge target only supports persistent snapshots");
        }
        if (shared.users() >= 2) {
            throw new SnapshotException(cow + " is already shared by two snapshot targets (a handover is under way)");
        }
    }

    @GuardedBy("control")
    private void checkMergeable(SnapshotSpec spec, Snapshot self) throws SnapshotException {
        if (!spec.store().persistent()) {
            throw new SnapshotException("Merge target only supports persistent snapshots");
        }
        Origin o = origins.get(spec.origin());
        if (o != null) {
            for (Snapshot other : o.snapshots) {
                if (other != self && other.merge() != null) {
                    throw new SnapshotException("A snapshot is already merging into origin '" + spec.origin().name() + "'");
                }
            }
        }
    }

    /* ---- For SnapshotHandle ---- */

    /** The last target let go of {@code shared}'s snapshot. */
    @GuardedBy("control")
    void unregister(SnapshotHandle.Shared shared) {
        Snapshot s = shared.snapshot;
        lock.lockExclusive();
        try {
            shared.origin.snapshots.remove(s);
        } finally {
            lock.unlockExclusive();
        }
        byCow.remove(s.cow());
        release(shared.origin);
    }
}
