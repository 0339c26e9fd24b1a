package io.blockwork.export.app;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.nbd.NbdClient;
import io.blockwork.nbd.NbdExport;
import io.blockwork.export.store.ExportEntity;
import io.blockwork.export.store.ExportRepository;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.consistency.EngineChanges;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.consistency.Records;
import io.blockwork.shared.device.Claim;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.DroppableHolder;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.problem.ProblemException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Service;

/**
 * NBD exports: create, inspect, delete. An export holds its device (a {@link Holder} of kind
 * "export" in the {@link DeviceRegistry}), so the device cannot be deleted under it; a forced
 * delete of the device drops its exports first ({@link DroppableHolder}). Deleting an export
 * takes it out of the server's table at once, so no new client gets in, and disconnects its
 * clients after the commit.
 *
 * <p>Export names are a name space of their own (an export is usually named after its device).
 */
@Service
public class ExportService implements DroppableHolder {

    /** The {@link Holder#kind()} of an export's claim on its device. */
    public static final String HOLDER_KIND = Holder.EXPORT;

    private final ExportRepository repository;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final NbdServerLifecycle nbd;
    private final NodeScope nodes;
    /** Configured exports that are not served, by name, with why; written by assembly and deletes. */
    private final Map<String, ObjectState> unavailable = new ConcurrentHashMap<>();

    public ExportService(ExportRepository repository, DeviceRegistry registry, ManagementOperations management,
                         NbdServerLifecycle nbd, NodeScope nodes) {
        this.nodes = nodes;
        this.repository = repository;
        this.registry = registry;
        this.management = management;
        this.nbd = nbd;
    }

    public ExportView create(ExportSpec spec) {
        return management.apply(changes -> {
            requireFree(spec.name());
            RegisteredDevice device = registry.find(spec.device()).orElseThrow(() -> ProblemException.invalid("device",
                    "no block device named '" + spec.device() + "'"));
            if (!device.live()) {
                throw new ProblemException(Problem.CONFLICT, device.kind().label() + " " + device.name()
                        + " is not active (" + device.state().reason() + "), so it cannot be exported")
                        .atField("device");
            }
            if (spec.tlsRequired() && !nbd.tlsEnabled()) {
                throw new ProblemException(Problem.NOT_SUPPORTED, "export " + spec.name() + " asks for tls: required, "
                        + "but the NBD server has no TLS configured (set blockwork.nbd.tls.bundle to an SSL bundle "
                        + "with the server's certificate and key)").atField("tls");
            }
            NbdExport export = new NbdExport(spec.name(), device.device(), spec.readOnly(), spec.description(),
                    spec.tlsRequired(), spec.allowedClients());
            Holder holder = holder(spec.name());
            try {
                registry.claim(device.name(), holder, claim(spec.readOnly(), spec.raw()));
            } catch (ProblemException e) {
                throw e.atField("device");
            }
            changes.undoOnRollback(() -> registry.release(device.name(), holder));
            nbd.exports().add(export);
            changes.undoOnRollback(() -> nbd.exports().remove(spec.name()));
            ExportEntity record = save(new ExportEntity(spec.name(), device.name(), device.kind().label(),
                    spec.readOnly(), spec.raw(), spec.description(), Instant.now().truncatedTo(ChronoUnit.MICROS),
                    spec.tlsRequired(), spec.allowedClientTexts()));
            return view(record);
        });
    }

    public List<ExportView> list() {
        return repository.findAllByOrderByNameAsc().stream().map(this::view).toList();
    }

    public ExportView get(String name) {
        return view(found(name));
    }

    /** Deletes an export; its clients are disconnected once their requests in flight are answered. */
    public void delete(String name) {
        management.run(changes -> drop(name, changes));
    }

    @Override
    public String holderKind() {
        return HOLDER_KIND;
    }

    @Override
    public void drop(String name, EngineChanges changes) {
        ExportEntity record = record(name);
        String device = record.getDeviceName();
        Holder holder = holder(name);
        nbd.exports().remove(name).ifPresent(live -> changes.undoOnRollback(() -> nbd.exports().add(live)));
        boolean held = registry.find(device).map(e -> e.holders().contains(holder)).orElse(false);
        if (held) {
            registry.release(device, holder);
            changes.undoOnRollback(() -> registry.claim(device, holder, claim(record)));
        }
        repository.delete(record);
        repository.flush();
        changes.afterCommit(() -> {
            unavailable.remove(name);
            nbd.disconnect(name);
        });
    }

    /* ---- start-up assembly (ExportRestorer) ---- */

    /** Serves a stored export; its device is active (assembly ordered it first). */
    void assemble(ExportEntity record) {
        if (record.isTlsRequired() && !nbd.tlsEnabled()) {
            throw new IllegalStateException("export " + record.getName() + " is served over TLS only, but the NBD "
                    + "server has no TLS configured (blockwork.nbd.tls.bundle)");
        }
        BlockDevice device = registry.device(record.getDeviceName());
        NbdExport export = new NbdExport(record.getName(), device, record.isReadOnly(), record.getDescription(),
                record.isTlsRequired(), ExportSpec.addressRanges(record.getAllowedClients()));
        registry.claim(record.getDeviceName(), holder(record.getName()), claim(record));
        nbd.exports().add(export);
    }

    /**
     * Keeps a stored export that cannot be served, with why. It still holds its device if the
     * device's name is known, so deleting that device needs force, which removes the export too.
     */
    void markUnavailable(ExportEntity record, ObjectState state) {
        unavailable.put(record.getName(), state);
        if (registry.find(record.getDeviceName()).isPresent()) {
            try {
                registry.claim(record.getDeviceName(), holder(record.getName()), claim(record));
            } catch (ProblemException e) {
                // the device belongs to something that refuses this export (the reason it is down)
            }
        }
    }

    /* ---- helpers ---- */

    private void requireFree(String name) {
        if (nbd.exports().find(name).isPresent() || unavailable.containsKey(name)) {
            throw new ProblemException(Problem.NAME_TAKEN, "an export named '" + name + "' already exists")
                    .atField("name").with("takenBy", HOLDER_KIND);
        }
    }

    private static Holder holder(String exportName) {
        return new Holder(HOLDER_KIND, exportName);
    }

    /** An export reads or writes its device from outside: hidden devices and owned ones refuse it. */
    private static Claim claim(boolean readOnly, boolean raw) {
        return readOnly ? Claim.READER : raw ? Claim.RAW_WRITER : Claim.WRITER;
    }

    private static Claim claim(ExportEntity r) {
        return claim(r.isReadOnly(), r.isRaw());
    }

    private ExportEntity save(ExportEntity record) {
        return Records.save(repository, record, "export " + record.getName());
    }

    /** The export's row, for a change: this node's exports only (409 other-node naming the owner). */
    private ExportEntity record(String name) {
        return nodes.requireLocal(found(name), "export " + name);
    }

    private ExportEntity found(String name) {
        return repository.findByName(name).orElseThrow(() -> ProblemException.notFound("export", name));
    }

    private ExportView view(ExportEntity r) {
        NbdExport live = nodes.isLocal(r) ? nbd.exports().find(r.getName()).orElse(null) : null;
        if (live == null) {
            ObjectState state = !nodes.isLocal(r) ? ObjectState.onNode(r.getNode())
                    : unavailable.getOrDefault(r.getName(), ObjectState.failed("not assembled"));
            return new ExportView(r.getName(), r.getDeviceName(), r.getDeviceKind(), r.isReadOnly(), r.isRaw(),
                    r.getDescription(), r.getCreatedAt(), state, null, List.of(), r.isTlsRequired(),
                    r.getAllowedClients(), r.getNode());
        }
        List<ExportView.Client> clients = nbd.clients(r.getName()).stream().map(ExportService::client).toList();
        return new ExportView(r.getName(), r.getDeviceName(), r.getDeviceKind(), r.isReadOnly(), r.isRaw(),
                r.getDescription(), r.getCreatedAt(), ObjectState.RUNNING, live.device().sizeBytes(), clients,
                r.isTlsRequired(), r.getAllowedClients(), r.getNode());
    }

    private static ExportView.Client client(NbdClient c) {
        return new ExportView.Client(c.id(), text(c.remoteAddress()), c.connectedAt(), c.requestsServed(),
                c.inFlightBytes(), c.tls());
    }

    /** "127.0.0.1:40112", "[::1]:40112". */
    private static String text(SocketAddress address) {
        if (address instanceof InetSocketAddress a && a.getAddress() != null) {
            String host = a.getAddress().getHostAddress();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
        }
        return String.valueOf(address);
    }
}
