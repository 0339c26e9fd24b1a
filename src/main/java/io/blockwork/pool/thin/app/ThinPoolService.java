package io.blockwork.pool.thin.app;

import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.thin.Pool;
import io.blockwork.engine.dm.thin.PoolMetadata;
import io.blockwork.pool.store.PoolEntity;
import io.blockwork.pool.store.PoolRepository;
import io.blockwork.pool.thin.store.ThinPoolEntity;
import io.blockwork.pool.thin.store.ThinPoolRepository;
import io.blockwork.pool.thin.store.ThinVolumeEntity;
import io.blockwork.pool.thin.store.ThinVolumeRepository;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.assembly.Ref;
import io.blockwork.shared.consistency.EngineChanges;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.consistency.Records;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.pool.app.ByteUnits;
import io.blockwork.pool.app.ExtentOwner;
import io.blockwork.pool.app.PoolExtents;
import io.blockwork.pool.app.PoolService;
import io.blockwork.pool.app.PoolView;
import io.blockwork.pool.app.Segment;
import io.blockwork.pool.app.ThinPoolUsage;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Service;

/**
 * Thin pools, like LVM thin pools: a metadata device and a data device (two block devices given by
 * name, or the hidden {@code <pool>-tmeta} and {@code <pool>-tdata} carved from a classic pool's
 * extents) under the hidden thin-pool device {@code <pool>-tpool}, which hands out data blocks to
 * thin volumes and snapshots ({@link ThinVolumeService}) as they are written.
 *
 * <p>Thin pools share the pools API and name space with classic pools; their configuration is in
 * H2 ({@code thin_pools}), their mappings on their metadata device, which creating a pool formats
 * (its first block is wiped) and start-up reads back. The pool claims its devices exclusively.
 * Growing is online: the data and metadata devices get more extents (or are re-read), and the pool
 * table is loaded again with the larger size.
 *
 * <p>Size note: over 400 lines because a thin pool's two set-ups (given devices, or carved from a
 * classic pool), growth and removal each change the database and the engine together with their
 * undo steps, as the classic pool service does; the volumes and snapshots have their own services.
 */
@Service
public class ThinPoolService {

    private static final System.Logger LOG = System.getLogger(ThinPoolService.class.getName());

    /** The {@link Holder#kind()} of a thin pool's claims, and its assembly reference's kind. */
    public static final String HOLDER_KIND = "thin-pool";

    private final ThinPoolRepository repository;
    private final ThinVolumeRepository volumes;
    private final PoolRepository classicPools;
    private final PoolService pools;
    private final PoolExtents extents;
    private final ThinDevices devices;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final NodeScope nodes;
    /** Every configured thin pool's state, by name. */
    private final Map<String, ObjectState> states = new ConcurrentHashMap<>();

    ThinPoolService(ThinPoolRepository repository, ThinVolumeRepository volumes, PoolRepository classicPools,
                    PoolService pools, PoolExtents extents, ThinDevices devices, DeviceRegistry registry,
                    ManagementOperations management, NodeScope nodes) {
        this.nodes = nodes;
        this.repository = repository;
        this.volumes = volumes;
        this.classicPools = classicPools;
        this.pools = pools;
        this.extents = extents;
        this.devices = devices;
        this.registry = registry;
        this.management = management;
    }

    /* ---- create, read ---- */

    public PoolView create(NewThinPool r) {
        return management.apply(changes -> {
            String name = DeviceNames.require(r.name(), "name");
            if (repository.existsByName(name) || classicPools.findByName(name).isPresent()) {
                throw new ProblemException(Problem.NAME_TAKEN, "a pool named '" + name + "' already exists")
                        .atField("name").with("takenBy", "pool");
            }
            long chunk = r.chunk();
            String discards = r.discardMode();
            String tpool = ThinDevices.poolDevice(name);
            requireFreeDerived(tpool);
            ThinPoolEntity record;
            String metadata;
            String data;
            if (r.carved()) {
                if (r.dataDevice() != null || r.metadataDevice() != null) {
                    throw ProblemException.invalid("from", "give either dataDevice and metadataDevice, or from (a classic"
                            + " pool) and size, not both");
                }
                if (repository.existsByName(r.from())) {
                    throw ProblemException.invalid("from", r.from() + " is a thin pool; a thin pool is carved from a"
                            + " classic pool");
                }
                PoolEntity parent;
                try {
                    pools.local(r.from());
                    parent = pools.active(r.from());
                } catch (ProblemException e) {
                    throw e.atField("from");
                }
                long es = parent.getExtentSizeBytes();
                if (r.sizeBytes() == null || r.sizeBytes() <= 0) {
                    throw ProblemException.invalid("size", "the data space to carve from pool " + r.from() + " is required");
                }
                long dataExtents = Math.ceilDiv(Math.max(r.sizeBytes(), chunk), es);
                long dataBlocks = NewThinPool.carvedDataBytes(r.sizeBytes(), chunk, es) / chunk;
                long metaBytes = r.metadataSizeBytes() == null ? NewThinPool.defaultMetadata(dataBlocks * chunk, chunk)
                        : r.metadataSizeBytes();
                if (metaBytes < 64L << 10) {
                    throw ProblemException.invalid("metadataSize", "a pool's metadata needs at least 64 KiB, not "
                            + metaBytes + " bytes");
                }
                long metaExtents = Math.ceilDiv(metaBytes, es);
                metadata = ThinDevices.metadataDevice(name);
                data = ThinDevices.dataDevice(name);
                requireFreeDerived(metadata);
                requireFreeDerived(data);
                record = save(new ThinPoolEntity(name, null, null, null, null, parent.getId(), chunk, dataBlocks,
                        lowWater(r, chunk), Boolean.TRUE.equals(r.errorWhenFull()), r.zero() == null || r.zero(), discards,
                        now()));
                List<Segment> metaSegments = extents.allocate(parent, metadataOwner(record), metaExtents);
                List<Segment> dataSegments = extents.allocate(parent, dataOwner(record), dataExtents);
                MappedDevice m = devices.carve(metadata, parent.getDeviceName(), es, metaSegments);
                changes.undoOnRollback(m::remove);
                registerHidden(m, name, changes);
                MappedDevice d = devices.carve(data, parent.getDeviceName(), es, dataSegments);
                changes.undoOnRollback(d::remove);
                registerHidden(d, name, changes);
            } else {
                if (r.dataDevice() == null || r.metadataDevice() == null) {
                    throw ProblemException.invalid(r.dataDevice() == null ? "dataDevice" : "metadataDevice",
                            "a thin pool needs a dataDevice and a metadataDevice (block devices by name), or from (a"
                                    + " classic pool to carve them from) and size");
                }
                if (r.dataDevice().equals(r.metadataDevice())) {
                    throw ProblemException.invalid("metadataDevice", "the metadata and data devices must differ");
                }
                RegisteredDevice de = live(r.dataDevice(), "dataDevice");
                RegisteredDevice me = live(r.metadataDevice(), "metadataDevice");
                long dataBlocks = de.device().sizeBytes() / chunk;
                if (dataBlocks == 0) {
                    throw ProblemException.invalid("dataDevice", r.dataDevice() + " has " + de.device().sizeBytes()
                            + " bytes, less than one chunk of " + ByteUnits.human(chunk));
                }
                if (me.device().sizeBytes() < 64L << 10) {
                    throw ProblemException.invalid("metadataDevice", r.metadataDevice() + " has "
                            + me.device().sizeBytes() + " bytes; a pool's metadata needs at least 64 KiB");
                }
                claim(r.dataDevice(), name, "dataDevice", changes);
                claim(r.metadataDevice(), name, "metadataDevice", changes);
                metadata = r.metadataDevice();
                data = r.dataDevice();
                record = save(new ThinPoolEntity(name, data, de.kind().label(), metadata, me.kind().label(), null, chunk,
                        dataBlocks, lowWater(r, chunk), Boolean.TRUE.equals(r.errorWhenFull()),
                        r.zero() == null || r.zero(), discards, now()));
            }
            devices.wipeMetadata(registry.device(metadata));
            MappedDevice pool = devices.createPool(name, metadata, data, record.getDataBlocks(), chunk >> 9,
                    record.getLowWaterBlocks(), features(record));
            changes.undoOnRollback(pool::remove);
            registerHidden(pool, name, changes);
            states.put(name, ObjectState.RUNNING);
            changes.undoOnRollback(() -> states.remove(name));
            return view(record);
        });
    }

    public List<PoolView> list() {
        return repository.findAllByOrderByNameAsc().stream().map(this::view).toList();
    }

    /** The thin pool {@code name}, if there is one (the pools API asks before it asks the classic pools). */
    public Optional<PoolView> find(String name) {
        return repository.findByName(name).map(this::view);
    }

    public boolean isThin(String name) {
        return repository.existsByName(name);
    }

    /**
     * Grows a thin pool online. Carved: {@code sizeBytes} and/or {@code metadataBytes} (each at
     * least the current size) get more extents of the classic pool. On devices: the pool takes what
     * its devices hold now (they were grown), up to {@code sizeBytes} of data if given.
     */
    public PoolView grow(String name, Long sizeBytes, Long metadataBytes) {
        return management.apply(changes -> {
            ThinPoolEntity r = active(name);
            long chunk = r.getBlockSizeBytes();
            long dataBlocks;
            if (r.carved()) {
                PoolEntity parent = classicPools.findById(r.getParentPoolId()).orElseThrow();
                long es = parent.getExtentSizeBytes();
                if (sizeBytes == null && metadataBytes == null) {
                    throw ProblemException.invalid("size", "nothing to change: give a new size and/or metadataSize");
                }
                dataBlocks = r.getDataBlocks();
                if (metadataBytes != null) {
                    growCarved(parent, metadataOwner(r), ThinDevices.metadataDevice(name), metadataBytes, "metadataSize",
                            changes);
                }
                if (sizeBytes != null) {
                    long total = growCarved(parent, dataOwner(r), ThinDevices.dataDevice(name), sizeBytes, "size", changes);
                    dataBlocks = total * es / chunk;
                }
            } else {
                if (metadataBytes != null) {
                    throw ProblemException.invalid("metadataSize", "the metadata of thin pool " + name + " is device "
                            + r.getMetadataDevice() + ": grow that device, then send {} to have the pool take it");
                }
                long have = registry.device(r.getDataDevice()).sizeBytes() / chunk;
                dataBlocks = sizeBytes == null ? have : Math.ceilDiv(sizeBytes, chunk);
                if (dataBlocks > have) {
                    throw ProblemException.invalid("size", "data device " + r.getDataDevice() + " holds "
                            + ByteUnits.human(have * chunk) + "; grow it first");
                }
            }
            if (dataBlocks < r.getDataBlocks()) {
                throw ProblemException.invalid("size", "a thin pool's data space cannot shrink (from "
                        + ByteUnits.human(r.getDataBlocks() * chunk) + " to " + ByteUnits.human(dataBlocks * chunk) + ")");
            }
            MappedDevice tpool = devices.live(ThinDevices.poolDevice(name));
            devices.reloadPool(tpool, metadataName(r), dataName(r), dataBlocks, chunk >> 9, r.getLowWaterBlocks(),
                    features(r));
            r.setDataBlocks(dataBlocks);
            save(r);
            return view(r);
        });
    }

    /** Gives a carved device more extents (to at least {@code bytes}) and swaps its larger table in; returns its extents. */
    private long growCarved(PoolEntity parent, ExtentOwner owner, String device, long bytes, String field,
                            EngineChanges changes) {
        long es = parent.getExtentSizeBytes();
        List<Segment> now = extents.segments(owner);
        long have = now.isEmpty() ? 0 : now.getLast().ownerEnd();
        long want = Math.ceilDiv(bytes, es);
        if (want < have) {
            throw ProblemException.invalid(field, "a thin pool's " + (field.equals("size") ? "data" : "metadata")
                    + " space cannot shrink (from " + ByteUnits.human(have * es) + " to " + ByteUnits.human(want * es) + ")");
        }
        if (want == have) {
            return have;
        }
        List<Segment> segments = extents.allocate(parent, owner, want - have);
        MappedDevice d = devices.live(device);
        String before = d.tableText();
        devices.reloadCarved(d, parent.getDeviceName(), es, segments);
        changes.undoOnRollback(() -> devices.restore(d, before));
        return want;
    }

    /** Deletes a thin pool without volumes, its devices, and (carved) its extents. */
    public void delete(String name) {
        management.run(changes -> {
            ThinPoolEntity r = local(name);
            List<String> names = volumes.findAllByThinPoolIdOrderByNameAsc(r.getId()).stream()
                    .map(ThinVolumeEntity::getName).toList();
            if (!names.isEmpty()) {
                throw new ProblemException(Problem.POOL_NOT_EMPTY, "thin pool " + name + " still has volumes and"
                        + " snapshots " + String.join(", ", names) + "; delete them first").with("volumes", names);
            }
            Holder holder = holder(name);
            MappedDevice tpool = unregisterHidden(ThinDevices.poolDevice(name), holder, changes);
            if (tpool != null) {
                changes.afterCommit(tpool::remove);
            }
            if (r.carved()) {
                for (String hidden : List.of(ThinDevices.dataDevice(name), ThinDevices.metadataDevice(name))) {
                    MappedDevice d = unregisterHidden(hidden, holder, changes);
                    if (d != null) {
                        changes.afterCommit(d::remove);
                    }
                }
                extents.release(dataOwner(r));
                extents.release(metadataOwner(r));
            } else {
                for (String device : List.of(r.getDataDevice(), r.getMetadataDevice())) {
                    if (registry.find(device).map(e -> e.holders().contains(holder)).orElse(false)) {
                        registry.release(device, holder);
                        changes.undoOnRollback(() -> registry.claimExclusive(device, holder));
                    }
                }
            }
            ObjectState state = states.remove(name);
            if (state != null) {
                changes.undoOnRollback(() -> states.put(name, state));
            }
            repository.delete(r);
            repository.flush();
        });
    }

    /* ---- for thin volumes and assembly ---- */

    public ThinPoolEntity record(String name) {
        return repository.findByName(name).orElseThrow(() -> ProblemException.notFound("thin pool", name));
    }

    ThinPoolEntity byId(long id) {
        return repository.findById(id).orElseThrow(() -> new IllegalStateException("thin pool #" + id + " is not configured"));
    }

    /**
     * The record for a change to the thin pool or to its thin volumes and snapshots, which live on
     * the pool's node: another node's pool is 409 other-node naming the owner.
     */
    public ThinPoolEntity local(String name) {
        return nodes.requireLocal(record(name), "thin pool " + name + " (with its thin volumes and snapshots)");
    }

    /** The record of a thin pool of this node that is active, else conflict naming why not. */
    public ThinPoolEntity active(String name) {
        ThinPoolEntity r = local(name);
        ObjectState s = states.getOrDefault(name, ObjectState.failed("not assembled"));
        if (!s.live()) {
            throw new ProblemException(Problem.CONFLICT, "thin pool " + name + " is not active: " + s.reason());
        }
        return r;
    }

    /** The pool's live device ({@code <pool>-tpool}). */
    MappedDevice poolDevice(ThinPoolEntity r) {
        return devices.live(ThinDevices.poolDevice(r.getName()));
    }

    Optional<Pool> engine(ThinPoolEntity r) {
        return registry.find(ThinDevices.poolDevice(r.getName()), MappedDevice.class).flatMap(devices::pool);
    }

    /** Start-up: rebuilds the pool's devices; its data and metadata devices (or its classic pool) are active. */
    void assemble(ThinPoolEntity r) {
        String name = r.getName();
        Holder holder = holder(name);
        if (r.carved()) {
            PoolEntity parent = classicPools.findById(r.getParentPoolId())
                    .orElseThrow(() -> new IllegalStateException("its classic pool #" + r.getParentPoolId() + " is gone"));
            for (ExtentOwner owner : List.of(metadataOwner(r), dataOwner(r))) {
                String device = owner.kind() == ExtentOwner.Kind.THIN_POOL_METADATA ? ThinDevices.metadataDevice(name)
                        : ThinDevices.dataDevice(name);
                List<Segment> segments = extents.segments(owner);
                if (segments.isEmpty()) {
                    throw new IllegalStateException("its " + device + " has no extents in pool " + parent.getName());
                }
                MappedDevice d = devices.carve(device, parent.getDeviceName(), parent.getExtentSizeBytes(), segments);
                registry.register(device, DeviceKind.HIDDEN, d);
                registry.claimExclusive(device, holder);
            }
        } else {
            registry.claimExclusive(r.getDataDevice(), holder);
            registry.claimExclusive(r.getMetadataDevice(), holder);
        }
        MappedDevice pool = devices.createPool(name, metadataName(r), dataName(r), r.getDataBlocks(),
                r.getBlockSizeBytes() >> 9, r.getLowWaterBlocks(), features(r));
        registry.register(pool.name(), DeviceKind.HIDDEN, pool);
        registry.claimExclusive(pool.name(), holder);
        states.put(name, ObjectState.RUNNING);
        forgetUnknownThinDevices(r, pool);
    }

    /**
     * Thin devices the pool's metadata has and the database does not: made by an operation whose
     * database transaction did not commit (a crash between the pool's commit and H2's). They are
     * deleted, so that their blocks go back and their ids can be handed out again.
     */
    private void forgetUnknownThinDevices(ThinPoolEntity r, MappedDevice tpool) {
        java.util.Set<Long> known = new java.util.HashSet<>();
        volumes.findAllByThinPoolIdOrderByNameAsc(r.getId()).forEach(v -> known.add(v.getThinId()));
        devices.pool(tpool).ifPresent(p -> {
            for (long id : p.metadata().devices()) {
                if (!known.contains(id)) {
                    LOG.log(System.Logger.Level.WARNING, "thin pool {0}: deleting thin device {1}, which no volume or"
                            + " snapshot names (an operation that did not complete)", r.getName(), id);
                    try {
                        devices.message(tpool, "delete " + id);
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "thin pool {0}: could not delete thin device {1}: {2}",
                                r.getName(), id, e.getMessage());
                    }
                }
            }
        });
    }

    void markUnavailable(ThinPoolEntity r, ObjectState state) {
        states.put(r.getName(), state);
    }

    static Ref ref(ThinPoolEntity r) {
        return new Ref(HOLDER_KIND, r.getName());
    }

    /** What a pool is assembled after: its two devices, or its classic pool. */
    Ref[] dependencies(ThinPoolEntity r) {
        if (r.carved()) {
            return classicPools.findById(r.getParentPoolId()).map(p -> new Ref[] {PoolService.ref(p)})
                    .orElse(new Ref[0]);
        }
        return new Ref[] {new Ref(r.getDataKind(), r.getDataDevice()), new Ref(r.getMetadataKind(), r.getMetadataDevice())};
    }

    /* ---- views ---- */

    boolean isLocal(ThinPoolEntity r) {
        return nodes.isLocal(r);
    }

    PoolView view(ThinPoolEntity r) {
        boolean local = nodes.isLocal(r);
        ObjectState state = !local ? ObjectState.onNode(r.getNode())
                : states.getOrDefault(r.getName(), ObjectState.failed("not assembled"));
        long chunk = r.getBlockSizeBytes();
        List<ThinVolumeEntity> all = volumes.findAllByThinPoolIdOrderByNameAsc(r.getId());
        List<String> names = all.stream().filter(v -> !v.snapshot()).map(ThinVolumeEntity::getName).toList();
        long virtual = all.stream().mapToLong(ThinVolumeEntity::getSizeBytes).sum();
        Optional<Pool> pool = state.live() ? engine(r) : Optional.empty();
        PoolMetadata.Usage u = pool.map(p -> p.metadata().usage()).orElse(null);
        long dataBlocks = u == null ? r.getDataBlocks() : u.dataBlocks();
        long used = u == null ? 0 : u.usedDataBlocks();
        String tpool = ThinDevices.poolDevice(r.getName());
        String status = pool.isPresent() ? registry.find(tpool, MappedDevice.class).map(d -> d.statusText().strip())
                .orElse(null) : null;
        ThinPoolUsage usage = new ThinPoolUsage(dataName(r), metadataName(r),
                r.carved() ? classicPools.findById(r.getParentPoolId()).map(PoolEntity::getName).orElse(null) : null,
                chunk, dataBlocks * chunk, used * chunk, u == null ? null : percent(used, dataBlocks),
                u == null ? 0 : u.metadataBlocks() * 4096, u == null ? 0 : u.usedMetadataBlocks() * 4096,
                u == null ? null : percent(u.usedMetadataBlocks(), u.metadataBlocks()), virtual,
                dataBlocks == 0 ? 0 : Math.round(100.0 * virtual / (dataBlocks * chunk)) / 100.0,
                pool.map(p -> p.mode().label()).orElse(null), r.isErrorWhenFull(), r.getDiscards(), r.isZeroNewBlocks(),
                u == null ? 0 : u.transactionId(), status);
        Long deviceSize = !local ? null : registry.find(tpool).filter(RegisteredDevice::live)
                .map(e -> e.device().sizeBytes()).orElse(null);
        long free = dataBlocks - used;
        return new PoolView(r.getName(), tpool, DeviceKind.HIDDEN.label(), deviceSize, chunk, dataBlocks, free, used,
                free, names, state, r.getCreatedAt(), r.getNode(), PoolView.THIN, usage, null, null);
    }

    static double percent(long part, long whole) {
        return whole == 0 ? 0 : Math.round(10000.0 * part / whole) / 100.0;
    }

    /* ---- helpers ---- */

    static Holder holder(String pool) {
        return new Holder(HOLDER_KIND, pool);
    }

    static String metadataName(ThinPoolEntity r) {
        return r.carved() ? ThinDevices.metadataDevice(r.getName()) : r.getMetadataDevice();
    }

    static String dataName(ThinPoolEntity r) {
        return r.carved() ? ThinDevices.dataDevice(r.getName()) : r.getDataDevice();
    }

    static io.blockwork.engine.dm.thin.PoolFeatures features(ThinPoolEntity r) {
        return NewThinPool.features(r.isErrorWhenFull(), r.isZeroNewBlocks(), r.getDiscards());
    }

    private static long lowWater(NewThinPool r, long chunk) {
        if (r.lowWaterBytes() == null) {
            return 0;
        }
        if (r.lowWaterBytes() < 0) {
            throw ProblemException.invalid("lowWaterMark", "the low-water mark is a size of free space, not "
                    + r.lowWaterBytes() + " bytes");
        }
        return Math.ceilDiv(r.lowWaterBytes(), chunk);
    }

    private static ExtentOwner dataOwner(ThinPoolEntity r) {
        return ExtentOwner.thinPoolData(r.getId());
    }

    private static ExtentOwner metadataOwner(ThinPoolEntity r) {
        return ExtentOwner.thinPoolMetadata(r.getId());
    }

    private RegisteredDevice live(String device, String field) {
        RegisteredDevice e = registry.find(device).orElseThrow(() -> ProblemException.invalid(field,
                "no block device named '" + device + "'"));
        if (!e.live()) {
            throw new ProblemException(Problem.CONFLICT, e.kind().label() + " " + device + " is not active ("
                    + e.state().reason() + ")").atField(field);
        }
        return e;
    }

    private void claim(String device, String pool, String field, EngineChanges changes) {
        Holder holder = holder(pool);
        try {
            registry.claimExclusive(device, holder);
        } catch (ProblemException e) {
            throw e.atField(field);
        }
        changes.undoOnRollback(() -> registry.release(device, holder));
    }

    private void registerHidden(MappedDevice d, String pool, EngineChanges changes) {
        Holder holder = holder(pool);
        registry.register(d.name(), DeviceKind.HIDDEN, d);
        registry.claimExclusive(d.name(), holder);
        changes.undoOnRollback(() -> {
            registry.release(d.name(), holder);
            registry.unregister(d.name());
        });
    }

    private MappedDevice unregisterHidden(String name, Holder holder, EngineChanges changes) {
        if (registry.find(name).isEmpty()) {
            return null;
        }
        registry.release(name, holder);
        changes.undoOnRollback(() -> registry.claimExclusive(name, holder));
        RegisteredDevice entry = registry.unregister(name);
        changes.undoOnRollback(() -> registry.reinstate(entry));
        return entry.device(MappedDevice.class).orElse(null);
    }

    private void requireFreeDerived(String derived) {
        try {
            DeviceNames.require(derived, "name");
            registry.requireFree(derived);
        } catch (ProblemException e) {
            throw e.atField("name");
        }
    }

    ThinPoolEntity save(ThinPoolEntity r) {
        return Records.save(repository, r, "thin pool " + r.getName());
    }

    private static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MICROS);
    }
}
