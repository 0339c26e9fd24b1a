package io.blockwork.dm.app;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.EmptyFlush;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.TableSpec;
import io.blockwork.engine.dm.snapshot.SnapshotLocking;
import io.blockwork.dm.store.DmDeviceEntity;
import io.blockwork.dm.store.DmDeviceRepository;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.consistency.Records;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.ForcedRemoval;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * Mapped devices (device-mapper), with {@code dmsetup}'s lifecycle: create, load, clear, suspend,
 * resume, message, rename, remove. Every change runs in {@link ManagementOperations}: the engine
 * changes first (a refused table changes nothing), its undo is recorded ({@link DmSnapshot}), the
 * holds on the devices its tables use follow ({@link DmHolds}), and the record is saved from the
 * engine's state afterwards, so {@code dm_devices} says exactly what the engine has.
 *
 * <p>Suspends wait for I/O in flight at most {@code blockwork.dm.suspend-timeout} (default 30 s):
 * they run under the management lock, and I/O stuck below (on a suspended lower device) must not
 * keep every other management operation, the lower device's resume included, waiting forever.
 *
 * <p>Size note: just over 400 lines because each dmsetup verb is one short operation here, and
 * the node checks (another node's device is read-only) sit beside the lookups they guard.
 */
@Service
public class DmService {

    private static final System.Logger LOG = System.getLogger(DmService.class.getName());

    private final DmConfig config;
    private final DmDeviceRepository repository;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final DmHolds holds;
    private final ForcedRemoval forcedRemoval;
    private final Duration suspendTimeout;
    private final NodeScope nodes;

    public DmService(DmConfig config, DmDeviceRepository repository, DeviceRegistry registry,
                     ManagementOperations management, DmHolds holds, ForcedRemoval forcedRemoval,
                     @Value("${blockwork.dm.suspend-timeout:30s}") Duration suspendTimeout, NodeScope nodes) {
        this.nodes = nodes;
        this.config = config;
        this.repository = repository;
        this.registry = registry;
        this.management = management;
        this.holds = holds;
        this.forcedRemoval = forcedRemoval;
        this.suspendTimeout = suspendTimeout;
    }

    /** The service's one dm configuration with a device's strategies. */
    static DmConfig config(DmConfig base, DmStrategies strategies) {
        return strategies.applyTo(base);
    }

    /** The strategies a record keeps. */
    static DmStrategies strategies(DmDeviceEntity r) {
        return new DmStrategies(EmptyFlush.fromLabel(r.getFlushStrategy()),
                BatchDispatch.Kind.fromLabel(r.getBatchDispatch()), SnapshotLocking.Kind.fromLabel(r.getSnapshotLocking()));
    }

    /* ---- create, read ---- */

    public DmView create(DmCreate c) {
        return management.apply(changes -> {
            String name = DeviceNames.require(c.name(), "name");
            String uuid = c.uuid() == null || c.uuid().isEmpty() ? null : checkUuid(c.uuid());
            registry.requireFree(name);
            if (uuid != null) {
                repository.findByUuid(uuid).ifPresent(r -> {
                    throw new ProblemException(Problem.CONFLICT, "uuid '" + uuid + "' belongs to dm device "
                            + r.getName()).atField("uuid");
                });
            }
            DmStrategies strategies = c.strategies() == null ? DmStrategies.DEFAULTS : c.strategies();
            TableSpec spec = c.table() == null ? null : nonEmpty(spec(c.table()));
            MappedDevice d = engine(() -> MappedDevice.create(name, uuid, spec, holds.lookup(), config(config, strategies)));
            changes.undoOnRollback(d::remove);
            registry.register(name, DeviceKind.DM, d);
            changes.undoOnRollback(() -> registry.unregister(name));
            holds.update(name, Set.of(), holds.uses(d).keySet(), changes);
            DmDeviceEntity record = new DmDeviceEntity(name, uuid, strategies.emptyFlush().label(),
                    strategies.batchDispatch().label(), strategies.snapshotLocking().label(),
                    // the database keeps microseconds; truncate so the create answer matches later reads
                    Instant.now().truncatedTo(ChronoUnit.MICROS));
            return view(save(recordState(record, d)));
        });
    }

    public List<DmView> list() {
        return repository.findAllByOrderByNameAsc().stream().map(this::view).toList();
    }

    public DmView get(String name) {
        return view(found(name));
    }

    /** The live (or inactive) table as {@code dmsetup table [--inactive]} prints it; "" for none. */
    public String tableText(String name, boolean inactive) {
        DmDeviceEntity record = found(name);
        if (nodes.isLocal(record) && registry.require(name).device() instanceof MappedDevice d) {
            return inactive ? d.inactiveTableText() : d.tableText();
        }
        return inactive ? nullToEmpty(record.getInactiveTable()) : record.getLiveTable();
    }

    /** The live table's status as {@code dmsetup status} prints it. */
    public String statusText(String name) {
        nodes.requireLocal(found(name), "dm device " + name);
        return live(name).statusText();
    }

    /* ---- lifecycle ---- */

    /** Loads a table into the inactive slot ({@code dmsetup load}); the live table is untouched. */
    public DmView load(String name, TableInput table) {
        return change(name, d -> {
            TableSpec spec = spec(table);
            d.load(spec, holds.lookup());
        });
    }

    /** Drops the inactive table ({@code dmsetup clear}); nothing to drop is fine. */
    public DmView clear(String name) {
        return change(name, MappedDevice::clear);
    }

    public DmView suspend(String name, boolean noflush) {
        return change(name, d -> {
            if (d.state() == DeviceInfo.State.SUSPENDED) {
                throw new ProblemException(Problem.INVALID_STATE, "dm device " + name + " is already suspended");
            }
            d.suspend(noflush, suspendTimeout);
        });
    }

    /** Resumes, swapping in the inactive table if there is one ({@code dmsetup resume}). */
    public DmView resume(String name) {
        return change(name, d -> {
            DeviceInfo info = d.info();
            if (info.state() == DeviceInfo.State.ACTIVE) {
                if (!info.inactiveTable()) {
                    throw new ProblemException(Problem.INVALID_STATE, "dm device " + name
                            + " is active and has no inactive table: nothing to resume (load a table or suspend first)");
                }
                d.suspend(false, suspendTimeout); // bounded here; resume's own suspend would wait for ever
            }
            d.resume();
        });
    }

    /**
     * Sends a message to the target at {@code sector} ({@code dmsetup message}); returns its reply.
     * Messages are not configuration: nothing is stored.
     */
    public String message(String name, long sector, String message) {
        return management.apply(changes -> {
            record(name);
            MappedDevice d = live(name);
            if (sector < 0) {
                throw ProblemException.invalid("sector", "sector must not be negative");
            }
            if (message == null || message.isBlank()) {
                throw ProblemException.invalid("message", "message must not be empty");
            }
            try {
                return d.message(sector, message);
            } catch (DmException e) {
                throw new ProblemException(Problem.MESSAGE_REFUSED, e.getMessage()).with("sector", sector);
            }
        });
    }

    /**
     * Renames an active device ({@code dmsetup rename}). Mapped devices stacked on it keep working
     * and their stored tables follow the new name; objects of other kinds record names of their
     * own, so a device they use is not renamed.
     */
    public DmView rename(String name, String newName) {
        return management.apply(changes -> {
            DeviceNames.require(newName, "newName");
            DmDeviceEntity record = record(name);
            if (name.equals(newName)) {
                return view(record);
            }
            try {
                registry.requireFree(newName);
            } catch (ProblemException e) {
                throw e.atField("newName");
            }
            MappedDevice d = live(name); // a device that is not active may be named in tables not built now
            RegisteredDevice entry = registry.require(name);
            List<String> others = entry.holders().stream().filter(h -> !h.kind().equals(DeviceKind.DM.label()))
                    .map(Holder::toString).sorted().toList();
            if (!others.isEmpty()) {
                throw new ProblemException(Problem.DEVICE_BUSY, "dm device " + name + " is used by "
                        + String.join(", ", others) + ", which refer to it by name; remove them first")
                        .with("holders", others);
            }
            Set<String> uses = holds.uses(d).keySet();
            registry.rename(name, newName);
            changes.undoOnRollback(() -> registry.rename(newName, name));
            holds.rename(name, newName, uses, changes);
            record.setName(newName);
            DmDeviceEntity saved = save(record);
            for (Holder h : entry.holders()) {
                DmDeviceEntity above = found(h.name());
                if (registry.require(h.name()).device() instanceof MappedDevice upper) {
                    save(recordState(above, upper)); // its tables now print the new name
                }
            }
            return view(saved);
        });
    }

    /**
     * Removes a device ({@code dmsetup remove}). Refused while it is open or other objects use it.
     * With {@code force}, its NBD exports are removed with it ({@link ForcedRemoval}; devices and
     * arrays built on it still refuse it), and an error table is swapped in before the removal,
     * so I/O still coming (held by a suspend, or in flight) fails instead of hanging.
     */
    public void delete(String name, boolean force) {
        management.run(changes -> {
            DmDeviceEntity record = record(name);
            RegisteredDevice current = registry.require(name);
            MappedDevice d = current.device(MappedDevice.class).orElse(null);
            if (force) {
                forcedRemoval.dropHolders(name, changes);
            } else if (current.holders().isEmpty() && d != null && d.info().openCount() > 0) {
                throw new ProblemException(Problem.DEVICE_BUSY, "dm device " + name + " is open (open count "
                        + d.info().openCount() + ")").with("openCount", d.info().openCount());
            }
            RegisteredDevice entry = registry.unregister(name);
            changes.undoOnRollback(() -> registry.reinstate(entry));
            if (d != null) {
                holds.update(name, holds.uses(d).keySet(), Set.of(), changes);
                if (d.state() == DeviceInfo.State.ACTIVE) {
                    // bounded here; remove's own suspend would wait for ever
                    DmSnapshot before = DmSnapshot.of(d);
                    engine(() -> d.suspend(true, suspendTimeout));
                    changes.undoOnRollback(() -> before.restore(d, holds.lookup()));
                }
            }
            repository.delete(record);
            repository.flush();
            if (d != null) {
                changes.afterCommit(() -> d.remove(force));
            }
        });
    }

    /* ---- helpers ---- */

    /**
     * Runs a lifecycle step on a live device. If the step fails, the device is put back as it
     * was (a resume whose new table refused leaves it suspended with both tables); if it succeeds,
     * the holds follow the tables and the record follows the engine.
     */
    private DmView change(String name, Consumer<MappedDevice> step) {
        return management.apply(changes -> {
            DmDeviceEntity record = record(name);
            MappedDevice d = live(name);
            DmSnapshot before = DmSnapshot.of(d);
            Set<String> usesBefore = holds.uses(d).keySet();
            try {
                engine(() -> step.accept(d));
            } catch (RuntimeException e) {
                restore(before, d);
                throw e;
            }
            changes.undoOnRollback(() -> before.restore(d, holds.lookup()));
            holds.update(name, usesBefore, holds.uses(d).keySet(), changes);
            return view(save(recordState(record, d)));
        });
    }

    private void restore(DmSnapshot before, MappedDevice d) {
        try {
            before.restore(d, holds.lookup());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "cannot put dm device " + d.name() + " back as it was", e);
        }
    }

    /** Runs an engine call, turning its refusals into problems. */
    private static <T> T engine(Supplier<T> call) {
        try {
            return call.get();
        } catch (TableException e) {
            throw invalidTable(e);
        } catch (DmException e) {
            throw new ProblemException(Problem.INVALID_STATE, e.getMessage()).causedBy(e);
        }
    }

    private static void engine(Runnable call) {
        engine(() -> {
            call.run();
            return null;
        });
    }

    private static TableSpec spec(TableInput input) {
        try {
            return input.spec();
        } catch (TableException e) {
            throw invalidTable(e);
        }
    }

    /** A create names a table or none; a table without targets is a mistake, not "none". */
    private static TableSpec nonEmpty(TableSpec spec) {
        if (spec.lines().isEmpty()) {
            throw invalidTable(new TableException(1, "the table has no targets"));
        }
        return spec;
    }

    static ProblemException invalidTable(TableException e) {
        return new ProblemException(Problem.INVALID_TABLE, e.getMessage()).atField("table").with("line", e.line())
                .causedBy(e);
    }

    private static String checkUuid(String uuid) {
        if (uuid.length() > MappedDevice.MAX_UUID || uuid.chars().anyMatch(c -> Character.isWhitespace(c)
                || Character.isISOControl(c))) {
            throw ProblemException.invalid("uuid", "a uuid has at most " + MappedDevice.MAX_UUID
                    + " characters and no white space");
        }
        return uuid;
    }

    /** Copies the engine's tables, suspended state and used devices into the record. */
    private DmDeviceEntity recordState(DmDeviceEntity record, MappedDevice d) {
        String live = d.tableText();
        String inactive = d.inactiveTableText();
        if (live.length() > DmDeviceEntity.MAX_TABLE_CHARS || inactive.length() > DmDeviceEntity.MAX_TABLE_CHARS) {
            throw new ProblemException(Problem.INVALID_TABLE, "the table text is longer than "
                    + DmDeviceEntity.MAX_TABLE_CHARS + " characters").atField("table");
        }
        record.setState(live, inactive.isEmpty() ? null : inactive, d.state() == DeviceInfo.State.SUSPENDED);
        record.setUses(holds.usesText(d));
        return record;
    }

    private DmDeviceEntity save(DmDeviceEntity record) {
        return Records.save(repository, record, "dm device " + record.getName());
    }

    /** The device's row, for a change: this node's devices only (409 other-node naming the owner). */
    private DmDeviceEntity record(String name) {
        return nodes.requireLocal(found(name), "dm device " + name);
    }

    private DmDeviceEntity found(String name) {
        return repository.findByName(name).orElseThrow(() -> ProblemException.notFound("dm device", name));
    }

    /** The live device for a change; another node's device is 409 other-node, an unknown one 404. */
    private MappedDevice live(String name) {
        if (registry.device(name) instanceof MappedDevice d) {
            return d;
        }
        repository.findByName(name).ifPresent(r -> nodes.requireLocal(r, "dm device " + name));
        throw ProblemException.notFound("dm device", name);
    }

    private DmView view(DmDeviceEntity r) {
        RegisteredDevice entry = nodes.isLocal(r) ? registry.find(r.getName()).orElse(null) : null;
        if (entry == null || !(entry.device() instanceof MappedDevice d)) {
            ObjectState state = !nodes.isLocal(r) ? ObjectState.onNode(r.getNode())
                    : entry != null ? entry.state() : ObjectState.failed("not registered");
            return new DmView(r.getName(), r.getUuid(), r.getLiveTable(), r.getInactiveTable(), r.isSuspended(),
                    strategies(r), null, null, state, r.getCreatedAt(), r.getNode());
        }
        String inactive = d.inactiveTableText();
        return new DmView(r.getName(), r.getUuid(), d.tableText(), inactive.isEmpty() ? null : inactive,
                d.state() == DeviceInfo.State.SUSPENDED, strategies(r), d.info(), d.status(StatusType.INFO),
                entry.state(), r.getCreatedAt(), r.getNode());
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
