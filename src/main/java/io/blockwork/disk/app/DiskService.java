package io.blockwork.disk.app;

import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.disk.CacheMode;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.nbd.client.NbdRemoteDevice;
import io.blockwork.disk.store.DiskEntity;
import io.blockwork.disk.store.DiskRepository;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.consistency.Records;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.ForcedRemoval;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import jakarta.annotation.PreDestroy;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.springframework.stereotype.Service;

/**
 * Backing disks: create, inspect, change, delete, power-cut. Every change goes through
 * {@link ManagementOperations}, so the {@code disks} table and the live {@link Disk} objects in the
 * {@link DeviceRegistry} change together or not at all.
 */
@Service
public class DiskService {

    private final DiskRepository repository;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final DiskEngines engines;
    private final ForcedRemoval forcedRemoval;
    private final NodeScope nodes;

    public DiskService(DiskRepository repository, DeviceRegistry registry, ManagementOperations management,
                       DiskEngines engines, ForcedRemoval forcedRemoval, NodeScope nodes) {
        this.nodes = nodes;
        this.repository = repository;
        this.registry = registry;
        this.management = management;
        this.engines = engines;
        this.forcedRemoval = forcedRemoval;
    }

    public DiskView create(DiskSpec spec) {
        return create(spec, false);
    }

    /**
     * A new disk; with {@code existingImage} a file disk opens the image already in the data dir
     * instead of creating one (a rollback then closes it and leaves it there).
     */
    public DiskView create(DiskSpec spec, boolean existingImage) {
        if (existingImage && spec.type() != DiskType.FILE) {
            throw ProblemException.invalid("image", "only file disks have an image; " + spec.type().label() + " disks start empty");
        }
        DiskSpec.requireBounded(spec.latency());
        // An nbd disk connects before the management lock is taken: a server that is slow or
        // silent (up to the client's timeout) must not hold up every other operation meanwhile.
        AbstractBlockDevice connected = spec.type() == DiskType.NBD ? engines.create(spec) : null;
        boolean[] handedOver = {false};
        try {
            return management.apply(changes -> {
                registry.requireFree(spec.name());
                AbstractBlockDevice disk = connected != null ? connected
                        : existingImage ? engines.adopt(spec) : engines.create(spec);
                handedOver[0] = true;
                changes.undoOnRollback(() -> {
                    if (existingImage) {
                        DiskEngines.close(disk);
                    } else {
                        engines.destroy(disk, spec.type());
                    }
                });
                registry.register(spec.name(), DeviceKind.DISK, disk);
                changes.undoOnRollback(() -> registry.unregister(spec.name()));
                // an nbd disk's size is the export's, known once connected
                DiskEntity record = save(toRecord(spec.type() == DiskType.NBD ? spec.withSize(disk.sizeBytes()) : spec));
                return view(record);
            });
        } finally {
            if (connected != null && !handedOver[0]) {
                DiskEngines.close(connected); // refused before the engine change began (the name is taken)
            }
        }
    }

    public List<DiskView> list() {
        return repository.findAllByOrderByNameAsc().stream().map(this::view).toList();
    }

    public DiskView get(String name) {
        return view(found(name));
    }

    /** Applies a partial change to a running disk; latency and queue depth are persisted. */
    public DiskView update(String name, DiskUpdate update) {
        return management.apply(changes -> {
            DiskEntity record = record(name);
            Disk disk = liveDisk(name);
            LatencyModel oldLatency = disk.latency();
            int oldDepth = disk.queueDepth();
            DiskFaults oldFaults = disk.faults();
            LatencyModel latency = update.latencyFrom(oldLatency);
            DiskSpec.requireBounded(latency);
            int depth = update.queueDepth() != null ? update.queueDepth() : oldDepth;
            if (depth < 0) {
                throw ProblemException.invalid("queueDepth", "queue depth must be 0 (no limit) or positive");
            }
            disk.latency(latency);
            disk.queueDepth(depth);
            disk.faults(update.faultsFrom(oldFaults));
            changes.undoOnRollback(() -> {
                disk.latency(oldLatency);
                disk.queueDepth(oldDepth);
                disk.faults(oldFaults);
            });
            record.setLatencyNanos(latency.readNanos(), latency.writeNanos(), latency.flushNanos(),
                    latency.jitterNanos());
            record.setQueueDepth(depth);
            return view(save(record));
        });
    }

    /**
     * Deletes a disk and its data; refused while anything holds it, unless {@code force} and every
     * holder may be dropped with it (exports: see {@link ForcedRemoval}). The engine object is
     * closed only after the commit; a request already running on it may then fail with an I/O error.
     */
    public void delete(String name, boolean force) {
        management.run(changes -> {
            DiskEntity record = record(name);
            DiskType type = typeOf(record);
            if (force) {
                forcedRemoval.dropHolders(name, changes);
            }
            RegisteredDevice entry = registry.unregister(name);
            changes.undoOnRollback(() -> registry.reinstate(entry));
            repository.delete(record);
            repository.flush();
            changes.afterCommit(() -> {
                if (entry.device() instanceof AbstractBlockDevice disk) {
                    engines.destroy(disk, type);
                } else if (type == DiskType.FILE) {
                    engines.deleteImage(name);
                }
            });
        });
    }

    /** Drops every write a writeback memory disk has not made durable, as pulling its plug would. */
    public DiskView powerCut(String name) {
        DiskEntity record = record(name);
        Disk disk = liveDisk(name);
        if (disk.cache() != CacheMode.WRITEBACK || typeOf(record) != DiskType.MEMORY) {
            throw new ProblemException(Problem.NOT_SUPPORTED, "disk " + name + " is a " + record.getType()
                    + " disk with a " + record.getCacheMode() + " cache: a power cut is modelled only on"
                    + " memory disks with \"cache\": \"writeback\"");
        }
        disk.powerCut();
        return view(record);
    }

    /** Closes every live disk when the service stops, so file images are released. */
    @PreDestroy
    void closeAll() {
        for (RegisteredDevice entry : registry.list()) {
            if (entry.kind() == DeviceKind.DISK) {
                DiskEngines.close(entry.device());
            }
        }
    }

    /* ---- helpers ---- */

    private DiskEntity save(DiskEntity record) {
        return Records.save(repository, record, "disk " + record.getName());
    }

    /** The disk's row, for a change: this node's disks only (409 other-node naming the owner). */
    private DiskEntity record(String name) {
        return nodes.requireLocal(found(name), "disk " + name);
    }

    private DiskEntity found(String name) {
        return repository.findByName(name).orElseThrow(() -> ProblemException.notFound("disk", name));
    }

    private Disk liveDisk(String name) {
        BlockDevice device = registry.device(name);
        if (device instanceof Disk disk) {
            return disk;
        }
        if (device instanceof NbdRemoteDevice) {
            throw new ProblemException(Problem.NOT_SUPPORTED, "disk " + name + " is an nbd disk: its latency, queue"
                    + " depth, faults and power are the server's device's");
        }
        throw ProblemException.notFound("disk", name);
    }

    private DiskView view(DiskEntity record) {
        DiskSpec spec = toSpec(record);
        if (!nodes.isLocal(record)) {
            return new DiskView(spec, record.getCreatedAt(), ObjectState.onNode(record.getNode()), null, null, null,
                    null, record.getNode());
        }
        RegisteredDevice entry = registry.find(record.getName()).orElse(null);
        if (entry != null && entry.device() instanceof NbdRemoteDevice remote) {
            DiskView.Stats stats = new DiskView.Stats(remote.counters(), 0, 0);
            return new DiskView(spec, record.getCreatedAt(), entry.state(), null, stats, null, remote.status(),
                    record.getNode());
        }
        if (entry == null || !(entry.device() instanceof Disk disk)) {
            ObjectState state = entry != null ? entry.state() : ObjectState.failed("not registered");
            return new DiskView(spec, record.getCreatedAt(), state, null, null, null, null, record.getNode());
        }
        DiskView.Stats stats = new DiskView.Stats(disk.counters(), disk.mediaFlushes(), disk.merges());
        return new DiskView(spec, record.getCreatedAt(), entry.state(), disk.allocatedBytes(), stats,
                disk.faults(), null, record.getNode());
    }

    static DiskSpec toSpec(DiskEntity r) {
        DiskSpec.Remote remote = r.getUri() == null ? null
                : new DiskSpec.Remote(r.getUri(), r.getConnections() == null ? 1 : r.getConnections());
        return new DiskSpec(r.getName(), typeOf(r), r.getSizeBytes(), r.getLogicalBlockSize(),
                CacheMode.fromLabel(r.getCacheMode()),
                new LatencyModel(r.getReadLatencyNanos(), r.getWriteLatencyNanos(), r.getFlushLatencyNanos(),
                        r.getJitterNanos()),
                r.getQueueDepth(), FlushMerging.fromLabel(r.getFlushStrategy()), remote);
    }

    private static DiskType typeOf(DiskEntity r) {
        return DiskType.fromLabel(r.getType())
                .orElseThrow(() -> new IllegalStateException("unknown disk type in database: " + r.getType()));
    }

    private static DiskEntity toRecord(DiskSpec s) {
        DiskEntity r = new DiskEntity(s.name(), s.type().label(), s.sizeBytes(), s.logicalBlockSize(),
                s.cache().label(), s.queueDepth(), s.flushMerging().label(),
                // the database keeps microseconds; truncate so the create answer matches later reads
                Instant.now().truncatedTo(ChronoUnit.MICROS));
        LatencyModel l = s.latency();
        r.setLatencyNanos(l.readNanos(), l.writeNanos(), l.flushNanos(), l.jitterNanos());
        if (s.remote() != null) {
            r.setRemote(s.remote().uri(), s.remote().connections());
        }
        return r;
    }
}
