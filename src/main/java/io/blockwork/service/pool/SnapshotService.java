package io.blockwork.service.pool;

import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.snapshot.SnapshotStatus;
import io.blockwork.engine.dm.snapshot.StoreType;
import io.blockwork.persistence.pool.PoolRecord;
import io.blockwork.persistence.pool.PoolRepository;
import io.blockwork.persistence.pool.SnapshotRecord;
import io.blockwork.persistence.pool.SnapshotRepository;
import io.blockwork.persistence.pool.VolumeRecord;
import io.blockwork.persistence.pool.VolumeRepository;
import io.blockwork.service.assembly.ObjectState;
import io.blockwork.service.consistency.EngineChanges;
import io.blockwork.service.consistency.ManagementOperations;
import io.blockwork.service.device.DeviceKind;
import io.blockwork.service.device.DeviceNames;
import io.blockwork.service.device.DeviceRegistry;
import io.blockwork.service.device.ForcedRemoval;
import io.blockwork.service.device.Holder;
import io.blockwork.service.device.RegisteredDevice;
import io.blockwork.service.problem.Problem;
import io.blockwork.service.problem.ProblemException;
import jakarta.annotation.PreDestroy;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.stereotype.Service;

/**
 * Snapshots of volumes, like LVM snapshots: copy-on-write space allocated from the volume's pool,
 * and the devices {@link SnapshotDevices} describes. The volume keeps its name and stays writable;
 * the first snapshot moves its linear table to {@code <volume>-real}, the last one gone moves it
 * back. A merge (rollback) makes the volume show the snapshot's content at once and copies the
 * snapshot's chunks back in the background; a watcher finishes it (the snapshot and its COW space
 * go) when the merge target reports it done.
 *
 * <p>Every change runs in {@link ManagementOperations}, engine steps with their undo. A volume
 * with snapshots cannot be resized or renamed ({@link Problem#HAS_SNAPSHOTS}); deleting it needs
 * force, which deletes its snapshots first.
 */
@Service
public class SnapshotService {

    /** The {@link Holder#kind()} of a snapshot's claim on its COW device. */
    public static final String HOLDER_KIND = "snapshot";

    private static final System.Logger LOG = System.getLogger(SnapshotService.class.getName());

    private final SnapshotRepository repository;
    private final VolumeRepository volumes;
    private final PoolRepository poolRepository;
    private final PoolService pools;
    private final PoolExtents extents;
    private final SnapshotDevices devices;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final ForcedRemoval forcedRemoval;
    private final SnapshotViews views;
    /** Snapshots merging into their volumes, to the volume's name; the watcher finishes them. */
    private final Map<String, String> merging = new ConcurrentHashMap<>();
    private final ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("snapshot-merge-watcher").factory());

    public SnapshotService(SnapshotRepository repository, VolumeRepository volumes, PoolRepository poolRepository,
                           PoolService pools, PoolExtents extents, SnapshotDevices devices, DeviceRegistry registry,
                           ManagementOperations management, ForcedRemoval forcedRemoval, SnapshotViews views) {
        this.repository = repository;
        this.volumes = volumes;
        this.poolRepository = poolRepository;
        this.pools = pools;
        this.extents = extents;
        this.devices = devices;
        this.registry = registry;
        this.management = management;
        this.forcedRemoval = forcedRemoval;
        this.views = views;
        watcher.scheduleWithFixedDelay(this::finishMerges, 100, 100, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        watcher.shutdownNow();
    }

    /* ---- create, read ---- */

    public SnapshotView create(String poolName, String volumeName, NewSnapshot s) {
        return management.apply(changes -> {
            PoolRecord pool = pools.record(poolName);
            VolumeRecord volume = pools.volume(pool, volumeName);
            String name = DeviceNames.require(s.name(), "name");
            long es = pool.getExtentSizeBytes();
            long chunkSectors = s.chunkSectors();
            long count = Math.ceilDiv(s.checkedSize(), es);
            if (count * es < 3 * (chunkSectors << 9)) {
                throw ProblemException.invalid("size", "a snapshot needs room for a header, a metadata area and at"
                        + " least one chunk: " + ByteUnits.human(3 * (chunkSectors << 9)) + " with chunks of "
                        + ByteUnits.human(chunkSectors << 9) + ", not " + ByteUnits.human(count * es));
            }
            StoreType store = s.persistent() == null || s.persistent() ? StoreType.PERSISTENT : StoreType.TRANSIENT;
            registry.requireFree(name);
            requireFreeDerived(SnapshotDevices.cowName(name), "name");
            List<SnapshotRecord> existing = repository.findAllByVolumeIdOrderByIdAsc(volume.getId());
            existing.stream().filter(SnapshotRecord::isMerging).findFirst().ifPresent(m -> {
                throw new ProblemException(Problem.INVALID_STATE, "volume " + volumeName + " is merging snapshot "
                        + m.getName() + "; take new snapshots once the merge is done").with("merging", m.getName());
            });
            pools.active(poolName);
            MappedDevice v = devices.liveVolume(volumeName);
            boolean origin = SnapshotDevices.isOrigin(v);
            if (!origin) {
                requireFreeDerived(SnapshotDevices.realName(volumeName), "volume");
            }
            SnapshotRecord record = save(new SnapshotRecord(name, volume.getId(), count, chunkSectors, store.code(),
                    // the database keeps microseconds; truncate so the create answer matches later reads
                    Instant.now().truncatedTo(ChronoUnit.MICROS)));
            List<Segment> segments = extents.allocate(pool, ExtentOwner.snapshot(record.getId()), count);
            MappedDevice cow = devices.createCow(name, pool.getDeviceName(), es, segments, chunkSectors);
            changes.undoOnRollback(cow::remove);
            registerHidden(cow, holder(name), changes);
            if (!origin) {
                MappedDevice real = devices.createReal(v);
                changes.undoOnRollback(real::remove);
                registerHidden(real, volumeHolder(volumeName), changes);
                String before = v.tableText();
                devices.makeOrigin(v);
                changes.undoOnRollback(() -> devices.restore(v, before));
            }
            MappedDevice snap = engine(() -> devices.createSnapshot(v, name, cow, store, chunkSectors));
            changes.undoOnRollback(snap::remove);
            registry.register(name, DeviceKind.SNAPSHOT, snap);
            changes.undoOnRollback(() -> registry.unregister(name));
            return views.view(record, volume, pool);
        });
    }

    public List<SnapshotView> list(String poolName, String volumeName) {
        PoolRecord pool = pools.record(poolName);
        VolumeRecord volume = pools.volume(pool, volumeName);
        return repository.findAllByVolumeIdOrderByIdAsc(volume.getId()).stream().map(r -> views.view(r, volume, pool))
                .toList();
    }

    public SnapshotView get(String poolName, String volumeName, String name) {
        PoolRecord pool = pools.record(poolName);
        VolumeRecord volume = pools.volume(pool, volumeName);
        return views.view(record(volume, name), volume, pool);
    }

    /** Names of the volume's snapshots, oldest first. */
    List<String> names(VolumeRecord volume) {
        return repository.findAllByVolumeIdOrderByIdAsc(volume.getId()).stream().map(SnapshotRecord::getName).toList();
    }

    /* ---- merge ---- */

    /**
     * Rolls the volume back to the snapshot: from now on the volume reads as the snapshot, while its
     * chunks are copied back. When that is done the snapshot and its COW space are gone.
     */
    public SnapshotView merge(String poolName, String volumeName, String name) {
        return management.apply(changes -> {
            PoolRecord pool = pools.record(poolName);
            VolumeRecord volume = pools.volume(pool, volumeName);
            SnapshotRecord record = record(volume, name);
            for (SnapshotRecord r : repository.findAllByVolumeIdOrderByIdAsc(volume.getId())) {
                if (r.isMerging()) {
                    throw new ProblemException(Problem.INVALID_STATE, "volume " + volumeName + " is merging snapshot "
                            + r.getName() + " already; one merge at a time").with("merging", r.getName());
                }
            }
            if (!StoreType.PERSISTENT.code().equals(record.getStore())) {
                throw new ProblemException(Problem.NOT_SUPPORTED, "snapshot " + name + " is transient: only persistent"
                        + " snapshots can be merged");
            }
            RegisteredDevice entry = registry.require(name);
            if (!entry.live() || !(entry.device() instanceof MappedDevice snap)) {
                throw new ProblemException(Problem.CONFLICT, "snapshot " + name + " is not active ("
                        + entry.state().reason() + "), so it cannot be merged");
            }
            if (!entry.holders().isEmpty()) {
                List<String> holders = entry.holders().stream().map(Holder::toString).sorted().toList();
                throw new ProblemException(Problem.DEVICE_BUSY, "snapshot " + name + " is used by "
                        + String.join(", ", holders) + "; a merge removes its device, so remove them first")
                        .with("holders", holders);
            }
            SnapshotStatus status = SnapshotDevices.status(snap).orElseThrow();
            if (status.state() != SnapshotStatus.State.VALID) {
                throw new ProblemException(Problem.CONFLICT, "snapshot " + name + " is " + status.text()
                        + ": its content is incomplete, so it cannot be merged; delete it");
            }
            MappedDevice v = devices.liveVolume(volumeName);
            record.setMergeExceptions(status.exceptions());
            save(record);
            RegisteredDevice taken = registry.unregister(name);
            changes.undoOnRollback(() -> registry.reinstate(taken));
            registry.reserve(name, DeviceKind.SNAPSHOT, mergingState(volumeName));
            changes.undoOnRollback(() -> registry.unregister(name));
            // the one step that is not undone: last, after everything that can fail
            engine(() -> {
                devices.merge(v, snap);
                return null;
            });
            merging.put(name, volumeName);
            return views.view(record, volume, pool);
        });
    }

    private void finishMerges() {
        for (Map.Entry<String, String> m : merging.entrySet()) {
            boolean done = registry.find(m.getValue()).map(RegisteredDevice::device).orElse(null) instanceof MappedDevice v
                    && SnapshotDevices.status(v).map(s -> s.merge() == SnapshotStatus.MergeState.DONE).orElse(false);
            if (!done) {
                continue; // not yet (or failed): nothing to do under the management lock
            }
            String name = m.getKey();
            try {
                finishMerge(name);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot finish the merge of snapshot " + name + " yet", e);
            }
        }
    }

    /** If the merge of {@code name} is done: the volume back to snapshot-origin (or linear), the snapshot gone. */
    void finishMerge(String name) {
        management.run(changes -> {
            SnapshotRecord record = repository.findByName(name).filter(SnapshotRecord::isMerging).orElse(null);
            VolumeRecord volume = record == null ? null : volumes.findById(record.getVolumeId()).orElse(null);
            if (volume == null) {
                merging.remove(name);
                return;
            }
            MappedDevice v = registry.find(volume.getName()).filter(RegisteredDevice::live)
                    .map(RegisteredDevice::device).orElse(null) instanceof MappedDevice m ? m : null;
            SnapshotStatus status = v == null ? null : SnapshotDevices.status(v).orElse(null);
            if (status == null || status.merge() != SnapshotStatus.MergeState.DONE) {
                return;
            }
            MappedDevice real = removeOrigin(volume, v, record, changes);
            RegisteredDevice reserved = registry.unregister(name);
            changes.undoOnRollback(() -> registry.reinstate(reserved));
            MappedDevice cow = unregisterHidden(SnapshotDevices.cowName(name), holder(name), changes);
            forget(record);
            changes.afterCommit(() -> {
                merging.remove(name);
                removeAll(cow, real);
            });
        });
    }

    /* ---- delete ---- */

    /**
     * Deletes a snapshot and frees its COW space; the volume goes back to linear with its last
     * snapshot. Refused with device-busy while exported, unless {@code force}.
     */
    public void delete(String poolName, String volumeName, String name, boolean force) {
        management.run(changes -> {
            PoolRecord pool = pools.record(poolName);
            VolumeRecord volume = pools.volume(pool, volumeName);
            drop(volume, record(volume, name), force, changes);
        });
    }

    /** A forced volume delete: every snapshot of the volume goes first. */
    void dropAll(VolumeRecord volume, EngineChanges changes) {
        for (SnapshotRecord r : repository.findAllByVolumeIdOrderByIdAsc(volume.getId())) {
            drop(volume, r, true, changes);
        }
    }

    private void drop(VolumeRecord volume, SnapshotRecord record, boolean force, EngineChanges changes) {
        String name = record.getName();
        if (record.isMerging()) {
            throw new ProblemException(Problem.INVALID_STATE, "snapshot " + name + " is merging into volume "
                    + volume.getName() + "; it goes away by itself when the merge is done").with("merging", name);
        }
        MappedDevice snap = null;
        if (registry.find(name).isPresent()) {
            if (force) {
                forcedRemoval.dropHolders(name, changes);
            }
            RegisteredDevice entry = registry.unregister(name);
            changes.undoOnRollback(() -> registry.reinstate(entry));
            snap = entry.device() instanceof MappedDevice m ? m : null;
            if (snap != null && snap.state() == DeviceInfo.State.ACTIVE) {
                devices.suspendForRemoval(snap);
                changes.undoOnRollback(snap::resume);
            }
        }
        MappedDevice cow = unregisterHidden(SnapshotDevices.cowName(name), holder(name), changes);
        MappedDevice v = registry.find(volume.getName()).filter(RegisteredDevice::live)
                .map(RegisteredDevice::device).orElse(null) instanceof MappedDevice m ? m : null;
        MappedDevice real = v == null ? null : removeOrigin(volume, v, record, changes);
        forget(record);
        MappedDevice gone = snap;
        changes.afterCommit(() -> {
            if (gone != null) {
                gone.remove(force);
            }
            removeAll(cow, real);
        });
    }

    /**
     * The volume after {@code record} goes: snapshot-origin if other snapshots remain, else linear
     * again, when its {@code -real} device is unregistered and returned for removal after the commit.
     */
    private MappedDevice removeOrigin(VolumeRecord volume, MappedDevice v, SnapshotRecord record,
                                      EngineChanges changes) {
        boolean last = repository.findAllByVolumeIdOrderByIdAsc(volume.getId()).stream()
                .allMatch(r -> r.getId().equals(record.getId()));
        String before = v.tableText();
        String realName = SnapshotDevices.realName(volume.getName());
        if (!last) {
            if (SnapshotDevices.isMerging(v)) {
                devices.makeOrigin(v);
                changes.undoOnRollback(() -> devices.restore(v, before));
            }
            return null;
        }
        if (!(registry.find(realName).map(RegisteredDevice::device).orElse(null) instanceof MappedDevice real)) {
            return null; // start-up never made it an origin
        }
        devices.makeLinear(v, real);
        changes.undoOnRollback(() -> devices.restore(v, before));
        return unregisterHidden(realName, volumeHolder(volume.getName()), changes);
    }

    private void forget(SnapshotRecord record) {
        extents.release(ExtentOwner.snapshot(record.getId()));
        repository.delete(record);
        repository.flush();
    }

    private static void removeAll(MappedDevice... gone) {
        for (MappedDevice d : gone) {
            if (d != null) {
                d.remove();
            }
        }
    }

    /* ---- start-up assembly ---- */

    /**
     * Rebuilds the snapshots of a volume whose device was just assembled (linear), before anything
     * else can use it: the {@code -real} device, the origin (or the merge that was running), then
     * every snapshot over its COW device, whose persistent exception store is read back. A snapshot
     * that cannot come back keeps its name, failed with why; the volume comes up regardless.
     */
    void assemble(VolumeRecord volume) {
        List<SnapshotRecord> all = repository.findAllByVolumeIdOrderByIdAsc(volume.getId());
        if (all.isEmpty()) {
            return;
        }
        PoolRecord pool = poolRepository.findById(volume.getPoolId()).orElseThrow();
        SnapshotRecord merge = all.stream().filter(SnapshotRecord::isMerging).findFirst().orElse(null);
        MappedDevice v;
        try {
            v = devices.liveVolume(volume.getName());
            MappedDevice real = devices.createReal(v);
            register(real, volumeHolder(volume.getName()));
            if (merge != null) {
                MappedDevice cow = devices.assembleCow(merge.getName(), pool.getDeviceName(), pool.getExtentSizeBytes(),
                        extents.segments(ExtentOwner.snapshot(merge.getId())));
                register(cow, holder(merge.getName()));
                devices.makeMerging(v, cow, merge.getChunkSectors());
                registry.reserve(merge.getName(), DeviceKind.SNAPSHOT, mergingState(volume.getName()));
                merging.put(merge.getName(), volume.getName());
            } else {
                devices.makeOrigin(v);
            }
        } catch (RuntimeException e) {
            for (SnapshotRecord r : all) {
                reserveFailed(r.getName(), "volume " + volume.getName() + " could not become its origin: " + e.getMessage());
            }
            return;
        }
        for (SnapshotRecord r : all) {
            if (r != merge) {
                assemble(r, v, pool);
            }
        }
    }

    private void assemble(SnapshotRecord r, MappedDevice v, PoolRecord pool) {
        String name = r.getName();
        MappedDevice cow = null;
        try {
            if (!StoreType.PERSISTENT.code().equals(r.getStore())) {
                throw new IllegalStateException("it is transient: its exceptions were lost when the service stopped;"
                        + " delete it");
            }
            cow = devices.assembleCow(name, pool.getDeviceName(), pool.getExtentSizeBytes(),
                    extents.segments(ExtentOwner.snapshot(r.getId())));
            register(cow, holder(name));
            registry.register(name, DeviceKind.SNAPSHOT, devices.createSnapshot(v, name, cow, StoreType.PERSISTENT,
                    r.getChunkSectors()));
        } catch (RuntimeException e) {
            if (cow != null) {
                registry.release(cow.name(), holder(name));
                registry.find(cow.name()).filter(c -> c.device() != null).ifPresent(c -> registry.unregister(c.name()));
                cow.remove();
            }
            reserveFailed(name, e.getMessage());
        }
    }

    /** For the snapshot's restorable: was it assembled with its volume, and if not, why. */
    void requireAssembled(String name) {
        RegisteredDevice entry = registry.find(name).orElse(null);
        if (entry == null) {
            throw new IllegalStateException("its volume did not assemble it");
        }
        if (!entry.live() && !merging.containsKey(name)) {
            throw new IllegalStateException(entry.state().reason());
        }
    }

    void markUnavailable(String name, ObjectState state) {
        if (registry.find(name).isEmpty()) {
            registry.reserve(name, DeviceKind.SNAPSHOT, state);
        }
    }

    private void reserveFailed(String name, String reason) {
        if (registry.find(name).isEmpty()) {
            registry.reserve(name, DeviceKind.SNAPSHOT, ObjectState.failed(reason));
        }
    }

    /* ---- helpers ---- */

    private static ObjectState mergingState(String volume) {
        return new ObjectState(ObjectState.ACTIVE, "merging", "merging into volume " + volume);
    }

    private static Holder holder(String snapshot) {
        return new Holder(HOLDER_KIND, snapshot);
    }

    private static Holder volumeHolder(String volume) {
        return new Holder(DeviceKind.VOLUME.label(), volume);
    }

    /** Registers a hidden device held by {@code holder} alone, with the undo steps. */
    private void registerHidden(MappedDevice d, Holder holder, EngineChanges changes) {
        register(d, holder);
        changes.undoOnRollback(() -> {
            registry.release(d.name(), holder);
            registry.unregister(d.name());
        });
    }

    private void register(MappedDevice d, Holder holder) {
        registry.register(d.name(), DeviceKind.HIDDEN, d);
        registry.claimExclusive(d.name(), holder);
    }

    /** Lets go of a hidden device; returns it for removal after the commit, or null if it is not there. */
    private MappedDevice unregisterHidden(String name, Holder holder, EngineChanges changes) {
        if (registry.find(name).isEmpty()) {
            return null;
        }
        registry.release(name, holder);
        changes.undoOnRollback(() -> registry.claimExclusive(name, holder));
        RegisteredDevice entry = registry.unregister(name);
        changes.undoOnRollback(() -> registry.reinstate(entry));
        return entry.device() instanceof MappedDevice m ? m : null;
    }

    private void requireFreeDerived(String derived, String field) {
        try {
            DeviceNames.require(derived, field);
            registry.requireFree(derived);
        } catch (ProblemException e) {
            throw e.atField(field);
        }
    }

    private static <T> T engine(java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (DmException e) {
            throw new ProblemException(Problem.CONFLICT, e.getMessage()).causedBy(e);
        }
    }


    private SnapshotRecord record(VolumeRecord volume, String name) {
        return repository.findByName(name).filter(s -> s.getVolumeId() == volume.getId())
                .orElseThrow(() -> ProblemException.notFound("snapshot of volume " + volume.getName(), name));
    }


    private SnapshotRecord save(SnapshotRecord record) {
        try {
            return repository.saveAndFlush(record);
        } catch (DataIntegrityViolationException e) {
            throw new ProblemException(Problem.CONFLICT, "the database refused snapshot " + record.getName()
                    + ": " + e.getMostSpecificCause().getMessage()).causedBy(e);
        }
    }
}
