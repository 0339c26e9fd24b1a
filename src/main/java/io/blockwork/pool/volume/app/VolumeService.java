package io.blockwork.pool.volume.app;

import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.pool.store.PoolEntity;
import io.blockwork.pool.store.PoolRepository;
import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.pool.volume.store.VolumeRepository;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.assembly.Ref;
import io.blockwork.shared.consistency.EngineChanges;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.consistency.Records;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.ForcedRemoval;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.pool.app.ByteUnits;
import io.blockwork.pool.app.ExtentOwner;
import io.blockwork.pool.app.PoolExtents;
import io.blockwork.pool.app.PoolService;
import io.blockwork.pool.app.Segment;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.stereotype.Service;

/**
 * Volumes, like LVM logical volumes: a size in whole extents of a pool, allocated by
 * {@link PoolExtents} (contiguous if one free run holds it, else anywhere) and served by a mapped
 * device of linear targets over the pool's device ({@link VolumeDevices}), registered as a block
 * device of kind {@code volume} under the volume's name, so the data endpoints, statistics and
 * NBD exports work on it.
 *
 * <p>Every operation runs in {@link ManagementOperations}: the allocation map, the volume's record
 * and its live table change together or not at all. Sizes are whole multiples of the 512-byte
 * sector and are rounded up to whole extents.
 *
 * <p>A create of a name in use is name-taken; the API confirms an identical repeat before it
 * calls create (shared/ensure/Ensure), so retrying a create is safe.
 */
@Service
public class VolumeService {

    public static final int SECTOR = 512;

    private final VolumeRepository repository;
    private final PoolRepository poolRepository;
    private final PoolService pools;
    private final PoolExtents extents;
    private final VolumeDevices devices;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final ForcedRemoval forcedRemoval;
    private final VolumeSnapshots snapshots;
    private final NodeScope nodes;

    VolumeService(VolumeRepository repository, PoolRepository poolRepository, PoolService pools,
                  PoolExtents extents, VolumeDevices devices, DeviceRegistry registry,
                  ManagementOperations management, ForcedRemoval forcedRemoval, VolumeSnapshots snapshots,
                  NodeScope nodes) {
        this.nodes = nodes;
        this.repository = repository;
        this.poolRepository = poolRepository;
        this.pools = pools;
        this.extents = extents;
        this.devices = devices;
        this.registry = registry;
        this.management = management;
        this.forcedRemoval = forcedRemoval;
        this.snapshots = snapshots;
    }

    /* ---- create, read ---- */

    public VolumeResult create(String poolName, String name, Long sizeBytes) {
        return management.apply(changes -> {
            PoolEntity pool = pools.local(poolName);
            DeviceNames.require(name, "name");
            long size = checkSize(sizeBytes, "size");
            long count = extentsFor(size, pool);
            VolumeEntity existing = repository.findByName(name).orElse(null);
            if (existing != null) {
                // a repeat of this create is confirmed before it gets here (shared/ensure/Ensure), which
                // hears this name-taken when it lost a race to an identical create
                PoolEntity other = poolRepository.findById(existing.getPoolId()).orElse(pool);
                throw new ProblemException(Problem.NAME_TAKEN, "the name '" + name + "' is taken: there is a volume of"
                        + " that name in pool " + other.getName() + " with " + ByteUnits.human(existing.getExtentCount()
                        * other.getExtentSizeBytes()))
                        .atField("name").with("takenBy", DeviceKind.VOLUME.label());
            }
            registry.requireFree(name);
            pools.active(poolName);
            VolumeEntity record = save(new VolumeEntity(name, pool.getId(), count,
                    // the database keeps microseconds; truncate so the create answer matches later reads
                    Instant.now().truncatedTo(ChronoUnit.MICROS)));
            List<Segment> segments = extents.allocate(pool, owner(record), count);
            MappedDevice d = devices.create(name, pool.getDeviceName(), pool.getExtentSizeBytes(), segments);
            changes.undoOnRollback(d::remove);
            registry.register(name, DeviceKind.VOLUME, d);
            changes.undoOnRollback(() -> registry.unregister(name));
            return new VolumeResult(view(record, pool, true), size);
        });
    }

    /** Every volume of every pool, by name. */
    public List<VolumeView> list() {
        Map<Long, PoolEntity> byId = poolRepository.findAll().stream()
                .collect(Collectors.toMap(PoolEntity::getId, Function.identity()));
        return repository.findAllByOrderByNameAsc().stream().map(v -> view(v, byId.get(v.getPoolId()), false))
                .toList();
    }

    public List<VolumeView> list(String poolName) {
        PoolEntity pool = pools.record(poolName);
        return repository.findAllByPoolIdOrderByNameAsc(pool.getId()).stream().map(v -> view(v, pool, false))
                .toList();
    }

    /** One volume with its segments and table. */
    public VolumeView get(String poolName, String name) {
        PoolEntity pool = pools.record(poolName);
        return view(record(pool, name), pool, true);
    }

    /* ---- change ---- */

    /**
     * Resizes and/or renames a volume. Growing allocates extents and swaps the bigger table in
     * online; shrinking needs {@code allowShrink}, swaps the smaller table in, then frees the
     * extents past the new end.
     */
    public VolumeResult change(String poolName, String name, VolumeChange change) {
        return management.apply(changes -> {
            PoolEntity pool = pools.local(poolName);
            VolumeEntity record = record(pool, name);
            if (change.sizeBytes() == null && change.deltaBytes() == null && change.newName() == null) {
                throw ProblemException.invalid("size", "nothing to change: give a new size and/or a new name");
            }
            long current = record.getExtentCount() * pool.getExtentSizeBytes();
            long requested = current;
            if (change.sizeBytes() != null || change.deltaBytes() != null) {
                requested = requestedSize(change, current); // a bad size is a 400 whatever the volume's state
                refuseWithSnapshots(record, "resized", "size");
                resize(pool, record, requested, change.allowShrink(), changes);
            }
            if (change.newName() != null && !change.newName().equals(name)) {
                refuseWithSnapshots(record, "renamed", "name");
                rename(record, change.newName(), changes);
            }
            return new VolumeResult(view(save(record), pool, true), requested);
        });
    }

    public VolumeView rename(String poolName, String name, String newName) {
        return change(poolName, name, VolumeChange.rename(newName)).volume();
    }

    private void resize(PoolEntity pool, VolumeEntity record, long size, boolean allowShrink, EngineChanges changes) {
        long count = extentsFor(size, pool);
        long currentCount = record.getExtentCount();
        if (count == currentCount) {
            return;
        }
        long es = pool.getExtentSizeBytes();
        if (count < currentCount && !allowShrink) {
            throw new ProblemException(Problem.SHRINK_NOT_CONFIRMED, "volume " + record.getName() + " would shrink from "
                    + ByteUnits.human(currentCount * es) + " to " + ByteUnits.human(count * es) + ", losing the "
                    + ByteUnits.human((currentCount - count) * es) + " past the new end; send \"allowShrink\": true"
                    + " to confirm").atField("allowShrink")
                    .with("sizeBytes", currentCount * es).with("newSizeBytes", count * es);
        }
        pools.active(pool.getName());
        MappedDevice d = live(record.getName());
        List<Segment> segments = count > currentCount
                ? extents.allocate(pool, owner(record), count - currentCount)
                : extents.truncate(owner(record), count);
        String before = d.tableText();
        devices.swap(d, pool.getDeviceName(), es, segments);
        changes.undoOnRollback(() -> devices.restore(d, before));
        record.setExtentCount(count);
    }

    /** Refused while something uses the volume: exports and tables refer to it by name. */
    private void rename(VolumeEntity record, String newName, EngineChanges changes) {
        String name = record.getName();
        DeviceNames.require(newName, "name");
        if (newName.equals(name)) {
            return;
        }
        registry.renameUnheld("volume", name, newName, "name");
        changes.undoOnRollback(() -> registry.rename(newName, name));
        record.setName(newName);
    }

    /**
     * Deletes a volume and frees its extents. Refused with device-busy while it is exported or
     * used, unless {@code force}, which removes its exports with it ({@link ForcedRemoval}) and
     * swaps in an error table so I/O still coming fails instead of hanging.
     */
    public void delete(String poolName, String name, boolean force) {
        management.run(changes -> {
            PoolEntity pool = pools.local(poolName);
            VolumeEntity record = record(pool, name);
            if (!force) {
                refuseWithSnapshots(record, "deleted without force=true, which deletes them too", null);
            } else {
                snapshots.dropAll(record, changes);
                forcedRemoval.dropHolders(name, changes);
            }
            RegisteredDevice entry = registry.unregister(name);
            changes.undoOnRollback(() -> registry.reinstate(entry));
            MappedDevice d = entry.device(MappedDevice.class).orElse(null);
            if (d != null && d.state() == DeviceInfo.State.ACTIVE) {
                devices.suspendForRemoval(d);
                changes.undoOnRollback(d::resume);
            }
            extents.release(owner(record));
            repository.delete(record);
            repository.flush();
            if (d != null) {
                changes.afterCommit(() -> d.remove(force));
            }
        });
    }

    /* ---- start-up assembly ---- */

    /** Rebuilds a volume's device from its segments; its pool is active. */
    void assemble(VolumeEntity record) {
        PoolEntity pool = poolRepository.findById(record.getPoolId())
                .orElseThrow(() -> new IllegalStateException("its pool #" + record.getPoolId() + " is not configured"));
        List<Segment> segments = extents.segments(owner(record));
        long covered = 0;
        for (Segment s : segments) {
            if (s.ownerStart() != covered) {
                throw new IllegalStateException("its allocation map has a gap at extent " + covered);
            }
            covered = s.ownerEnd();
        }
        if (covered != record.getExtentCount()) {
            throw new IllegalStateException("its allocation map covers " + covered + " extents, not "
                    + record.getExtentCount());
        }
        MappedDevice d = devices.create(record.getName(), pool.getDeviceName(), pool.getExtentSizeBytes(), segments);
        try {
            registry.register(record.getName(), DeviceKind.VOLUME, d);
        } catch (RuntimeException e) {
            d.remove();
            throw e;
        }
    }

    /* ---- helpers ---- */

    /** Resizing, renaming or deleting a volume breaks its snapshots' tables; they go first. */
    private void refuseWithSnapshots(VolumeEntity record, String what, String field) {
        List<String> names = snapshots.names(record);
        if (!names.isEmpty()) {
            ProblemException e = new ProblemException(Problem.HAS_SNAPSHOTS, "volume " + record.getName() + " has "
                    + (names.size() == 1 ? "snapshot " : "snapshots ") + String.join(", ", names) + ", so it cannot be "
                    + what + "; delete " + (names.size() == 1 ? "it" : "them") + " (or merge) first")
                    .with("snapshots", names);
            throw field == null ? e : e.atField(field);
        }
    }

    /**
     * lvs-style attributes, ten characters: volume type {@code -} (plain), {@code o} (origin of
     * snapshots) or {@code O} (origin merging a snapshot), permissions {@code w}
     * (writeable), allocation policy {@code i} (inherited), fixed minor {@code -}, state {@code a}
     * (active), {@code s} (suspended) or {@code -} (not active), open {@code o} (exported or used by
     * another device) or {@code -}, then target type, zeroing, health and skip-activation, all
     * {@code -}. An unused active volume is {@code -wi-a-----}, an exported one {@code -wi-ao----}.
     */
    static String attributes(RegisteredDevice entry) {
        MappedDevice d = entry == null ? null : entry.device(MappedDevice.class).orElse(null);
        char state = d == null ? '-' : d.state() == DeviceInfo.State.SUSPENDED ? 's' : 'a';
        boolean open = entry != null && (!entry.holders().isEmpty() || (d != null && d.info().openCount() > 0));
        char type = d == null ? '-' : Snapshots.isOrigin(d) ? 'o' : Snapshots.isMerging(d) ? 'O' : '-';
        return type + "wi-" + state + (open ? 'o' : '-') + "----";
    }

    private long requestedSize(VolumeChange change, long current) {
        if (change.sizeBytes() != null) {
            return checkSize(change.sizeBytes(), "size");
        }
        long delta = change.deltaBytes();
        if (Math.abs(delta) % SECTOR != 0) {
            throw notSectors(Math.abs(delta), "the size change");
        }
        long size;
        try {
            size = Math.addExact(current, delta);
        } catch (ArithmeticException e) {
            throw ProblemException.invalid("size", "the new size is too large");
        }
        if (size <= 0) {
            throw ProblemException.invalid("size", "the new size would be " + size + " bytes (" + current + " "
                    + (delta < 0 ? "- " : "+ ") + Math.abs(delta) + "); a volume has at least one sector")
                    .with("sizeBytes", current);
        }
        return size;
    }

    private static long checkSize(Long bytes, String field) {
        if (bytes == null) {
            throw ProblemException.invalid(field, "the volume's size is required");
        }
        if (bytes <= 0) {
            throw ProblemException.invalid(field, "a volume has at least one sector (512 bytes), not " + bytes + " bytes");
        }
        if (bytes % SECTOR != 0) {
            throw notSectors(bytes, "the size");
        }
        return bytes;
    }

    private static ProblemException notSectors(long bytes, String what) {
        return ProblemException.invalid("size", what + " " + bytes + " bytes is not a whole number of 512-byte sectors")
                .with("sectorSize", SECTOR);
    }

    private static long extentsFor(long size, PoolEntity pool) {
        return Math.ceilDiv(size, pool.getExtentSizeBytes());
    }

    private static ExtentOwner owner(VolumeEntity record) {
        return ExtentOwner.volume(record.getId());
    }

    private VolumeEntity record(PoolEntity pool, String name) {
        return pools.volume(pool, name);
    }

    private MappedDevice live(String name) {
        return devices.live(name);
    }

    private VolumeEntity save(VolumeEntity record) {
        return Records.save(repository, record, "volume " + record.getName());
    }

    /** The assembly reference of a volume: what its snapshots are assembled after. */
    public static Ref ref(VolumeEntity v) {
        return new Ref(DeviceKind.VOLUME.label(), v.getName());
    }

    private VolumeView view(VolumeEntity v, PoolEntity pool, boolean detail) {
        boolean local = nodes.isLocal(pool);
        RegisteredDevice entry = local ? registry.find(v.getName()).orElse(null) : null;
        List<Segment> segments = extents.segments(owner(v));
        List<String> holders = entry == null ? List.of()
                : entry.holders().stream().map(Holder::toString).sorted().toList();
        List<String> exports = entry == null ? List.of() : entry.holderNames(Holder.EXPORT);
        ObjectState state = !local ? ObjectState.onNode(pool.getNode())
                : entry != null ? entry.state() : ObjectState.failed("not registered");
        String table = null;
        if (detail) {
            table = entry == null ? null : entry.device(MappedDevice.class).map(MappedDevice::tableText).orElse(null);
            if (table == null) {
                table = Segment.table(pool.getDeviceName(), pool.getExtentSizeBytes(), segments).text();
            }
        }
        long es = pool.getExtentSizeBytes();
        return new VolumeView(v.getName(), pool.getName(), v.getExtentCount() * es, v.getExtentCount(), es,
                segments.size(), v.getName(), attributes(entry), exports, holders, snapshots.names(v), state,
                v.getCreatedAt(), detail ? segments : null, table, pool.getNode(), VolumeView.LINEAR,
                v.getExtentCount() * es, null);
    }
}
