package io.blockwork.pool.app;

import io.blockwork.pool.store.PoolEntity;
import io.blockwork.pool.store.PoolRepository;
import io.blockwork.pool.thin.store.ThinPoolRepository;
import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.pool.volume.store.VolumeRepository;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.assembly.Ref;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.consistency.Records;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.shared.device.Claim;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Service;

/**
 * Pools, like LVM volume groups on one physical volume: a pool divides one block device (a disk,
 * an array, a mapped device) into extents of one size and hands them out to volumes
 * (the volume feature) through {@link PoolExtents}. Its metadata (the allocation map) is kept in
 * H2, not on the device, so extent 0 starts at the device's byte 0.
 *
 * <p>A pool claims its device exclusively ({@link DeviceRegistry#claimExclusive}): the device must
 * be free of other users, and while the pool exists nothing else (an export, a mapped device's
 * table, an array) can claim it, so nothing but the pool's volumes writes to it.
 */
@Service
public class PoolService {

    /** The {@link Holder#kind()} of a pool's claim on its device. */
    public static final String HOLDER_KIND = "pool";
    public static final long DEFAULT_EXTENT_SIZE = 4L << 20;
    public static final long MIN_EXTENT_SIZE = 64L << 10;

    private final PoolRepository repository;
    private final ThinPoolRepository thinPools;
    private final VolumeRepository volumes;
    private final PoolExtents extents;
    private final PoolAllocations allocations;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final NodeScope nodes;
    /** Every configured pool's state, by name: running, or why not. Written by management operations and assembly. */
    private final Map<String, ObjectState> states = new ConcurrentHashMap<>();

    public PoolService(PoolRepository repository, ThinPoolRepository thinPools, VolumeRepository volumes,
                       PoolExtents extents, PoolAllocations allocations, DeviceRegistry registry,
                       ManagementOperations management, NodeScope nodes) {
        this.nodes = nodes;
        this.repository = repository;
        this.thinPools = thinPools;
        this.volumes = volumes;
        this.extents = extents;
        this.allocations = allocations;
        this.registry = registry;
        this.management = management;
    }

    /**
     * Creates a pool on {@code device}.
     *
     * @param extentSizeBytes null for the default, 4 MiB
     */
    public PoolView create(String name, String device, Long extentSizeBytes) {
        return management.apply(changes -> {
            DeviceNames.require(name, "name");
            if (repository.findByName(name).isPresent() || thinPools.existsByName(name)) {
                throw new ProblemException(Problem.NAME_TAKEN, "a pool named '" + name + "' already exists")
                        .atField("name").with("takenBy", HOLDER_KIND);
            }
            if (device == null || device.isBlank()) {
                throw ProblemException.invalid("device", "the block device to put the pool on is required");
            }
            RegisteredDevice entry = registry.find(device).orElseThrow(() -> ProblemException.invalid("device",
                    "no block device named '" + device + "'"));
            if (!entry.live()) {
                throw new ProblemException(Problem.CONFLICT, entry.kind().label() + " " + device + " is not active ("
                        + entry.state().reason() + "), so a pool cannot be put on it").atField("device");
            }
            long es = extentSizeBytes == null ? DEFAULT_EXTENT_SIZE : extentSizeBytes;
            long deviceSize = entry.device().sizeBytes();
            checkExtentSize(es, entry.device().limits().logicalBlockSize(), device, deviceSize);
            Holder holder = holder(name);
            try {
                registry.claimExclusive(device, holder);
            } catch (ProblemException e) {
                throw e.atField("device");
            }
            changes.undoOnRollback(() -> registry.release(device, holder));
            states.put(name, ObjectState.RUNNING);
            changes.undoOnRollback(() -> states.remove(name));
            PoolEntity record = save(new PoolEntity(name, device, entry.kind().label(), es, deviceSize / es,
                    Instant.now().truncatedTo(ChronoUnit.MICROS)));
            return view(record, true);
        });
    }

    /** Every classic pool, without its allocations. */
    public List<PoolView> list() {
        return repository.findAllByOrderByNameAsc().stream().map(r -> view(r, false)).toList();
    }

    /** The pool with every allocation of its extents. */
    public PoolView get(String name) {
        return view(record(name), true);
    }

    /** Deletes an empty pool and lets go of its device; refused with pool-not-empty while it has volumes. */
    public void delete(String name) {
        management.run(changes -> {
            PoolEntity record = local(name);
            List<String> names = volumes.findAllByPoolIdOrderByNameAsc(record.getId()).stream()
                    .map(VolumeEntity::getName).toList();
            List<ExtentOwner> owners = extents.owners(record);
            if (!names.isEmpty() || !owners.isEmpty()) {
                String what = names.isEmpty() ? "extents owned by " + owners : "volumes " + String.join(", ", names);
                throw new ProblemException(Problem.POOL_NOT_EMPTY, "pool " + name + " still has " + what
                        + "; delete them first").with("volumes", names);
            }
            Holder holder = holder(name);
            RegisteredDevice device = registry.find(record.getDeviceName()).orElse(null);
            if (device != null && device.holders().contains(holder)) {
                Claim claim = device.claims().get(holder);
                registry.release(device.name(), holder);
                changes.undoOnRollback(() -> registry.claim(device.name(), holder, claim));
            }
            ObjectState state = states.remove(name);
            if (state != null) {
                changes.undoOnRollback(() -> states.put(name, state));
            }
            repository.delete(record);
            repository.flush();
        });
    }

    /* ---- for volumes, snapshots and assembly ---- */

    /** The pool's record, or not-found. */
    public PoolEntity record(String name) {
        return repository.findByName(name).orElseThrow(() -> ProblemException.notFound("pool", name));
    }

    /**
     * The pool's record for a change to it or to its volumes and snapshots, which live on the
     * pool's node: another node's pool is 409 other-node naming the owner.
     */
    public PoolEntity local(String name) {
        return nodes.requireLocal(record(name), "pool " + name + " (with its volumes and snapshots)");
    }

    /** The record of volume {@code name} in {@code pool}, or not-found. */
    public VolumeEntity volume(PoolEntity pool, String name) {
        return volumes.findByName(name).filter(v -> v.getPoolId() == pool.getId())
                .orElseThrow(() -> ProblemException.notFound("volume in pool " + pool.getName(), name));
    }

    /** The pool's record if it is active, else conflict naming why not. */
    public PoolEntity active(String name) {
        PoolEntity record = record(name);
        ObjectState state = state(name);
        if (!state.live()) {
            throw new ProblemException(Problem.CONFLICT, "pool " + name + " is not active: " + state.reason());
        }
        return record;
    }

    ObjectState state(String name) {
        return states.getOrDefault(name, ObjectState.failed("not assembled"));
    }

    /** Start-up: the pool's device is active; claims it if it still holds every extent. */
    void assemble(PoolEntity record) {
        RegisteredDevice entry = registry.require(record.getDeviceName());
        long needed = record.getExtentCount() * record.getExtentSizeBytes();
        long size = entry.device().sizeBytes();
        if (size < needed) {
            throw new IllegalStateException("its device " + record.getDeviceName() + " has " + size + " bytes, fewer than"
                    + " the pool's " + needed + " (" + ByteUnits.extents(record.getExtentCount(),
                    record.getExtentSizeBytes()) + ")");
        }
        registry.claimExclusive(record.getDeviceName(), holder(record.getName()));
        states.put(record.getName(), ObjectState.RUNNING);
    }

    /**
     * Start-up: keeps a pool that cannot be assembled, with why. It still holds its device if that
     * is known, so the device is not reused while the pool's volumes are configured on it.
     */
    void markUnavailable(PoolEntity record, ObjectState state) {
        states.put(record.getName(), state);
        if (registry.find(record.getDeviceName()).isPresent()) {
            try {
                registry.claimExclusive(record.getDeviceName(), holder(record.getName()));
            } catch (ProblemException e) {
                // something else uses it already: the pool does not take it from them
            }
        }
    }

    /** The assembly reference of a pool: what its volumes are assembled after. */
    public static Ref ref(PoolEntity pool) {
        return new Ref(HOLDER_KIND, pool.getName());
    }

    static Holder holder(String poolName) {
        return new Holder(HOLDER_KIND, poolName);
    }

    /* ---- helpers ---- */

    private static void checkExtentSize(long es, int logicalBlockSize, String device, long deviceSize) {
        if (es < MIN_EXTENT_SIZE || Long.bitCount(es) != 1) {
            throw ProblemException.invalid("extentSize", "the extent size must be a power of two of at least 64 KiB, not "
                    + es + " bytes").with("extentSizeBytes", es);
        }
        if (es % logicalBlockSize != 0) {
            throw ProblemException.invalid("extentSize", "the extent size " + es + " is not a multiple of the logical"
                    + " block size " + logicalBlockSize + " of " + device).with("logicalBlockSize", logicalBlockSize);
        }
        if (deviceSize < es) {
            throw ProblemException.invalid("extentSize", device + " has " + deviceSize + " bytes, less than one extent of "
                    + ByteUnits.human(es)).with("deviceSizeBytes", deviceSize);
        }
    }

    private PoolEntity save(PoolEntity record) {
        return Records.save(repository, record, "pool " + record.getName());
    }

    private PoolView view(PoolEntity r, boolean withAllocations) {
        List<PoolExtents.OwnedSegment> allocated = extents.allocated(r);
        ExtentMap map = PoolExtents.map(r, allocated);
        Long deviceSize = registry.find(r.getDeviceName()).filter(RegisteredDevice::live)
                .map(e -> e.device().sizeBytes()).orElse(null);
        List<String> names = volumes.findAllByPoolIdOrderByNameAsc(r.getId()).stream().map(VolumeEntity::getName)
                .toList();
        boolean local = nodes.isLocal(r);
        return new PoolView(r.getName(), r.getDeviceName(), r.getDeviceKind(), local ? deviceSize : null,
                r.getExtentSizeBytes(), map.totalExtents(), map.freeExtents(), map.usedExtents(), map.largestFreeRun(),
                names, local ? state(r.getName()) : ObjectState.onNode(r.getNode()), r.getCreatedAt(), r.getNode(),
                PoolView.CLASSIC, null, allocations.thinPools(r), withAllocations ? allocations.of(allocated) : null);
    }
}
