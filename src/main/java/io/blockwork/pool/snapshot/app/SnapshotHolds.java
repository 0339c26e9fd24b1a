package io.blockwork.pool.snapshot.app;

import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.consistency.EngineChanges;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import org.springframework.stereotype.Component;

/**
 * The registry side of snapshots: the hidden devices ({@code <volume>-real}, {@code <snapshot>-cow})
 * each held by its one owner, so nothing else can use them, and the names of snapshots that are
 * merging or could not come back.
 */
@Component
class SnapshotHolds {

    /** The {@link Holder#kind()} of a snapshot's claim on its COW device. */
    static final String HOLDER_KIND = "snapshot";

    private final DeviceRegistry registry;

    SnapshotHolds(DeviceRegistry registry) {
        this.registry = registry;
    }

    static Holder holder(String snapshot) {
        return new Holder(HOLDER_KIND, snapshot);
    }

    static Holder volumeHolder(String volume) {
        return new Holder(DeviceKind.VOLUME.label(), volume);
    }

    static ObjectState mergingState(String volume) {
        return new ObjectState(ObjectState.ACTIVE, "merging", "merging into volume " + volume);
    }

    /** Registers a hidden device held by {@code holder} alone. */
    void register(MappedDevice d, Holder holder) {
        registry.register(d.name(), DeviceKind.HIDDEN, d);
        registry.claimExclusive(d.name(), holder);
    }

    /** {@link #register}, undone if the operation does not commit. */
    void register(MappedDevice d, Holder holder, EngineChanges changes) {
        register(d, holder);
        changes.undoOnRollback(() -> {
            registry.release(d.name(), holder);
            registry.unregister(d.name());
        });
    }

    /** Lets go of a hidden device; returns it for removal after the commit, or null if it is not there. */
    MappedDevice unregister(String name, Holder holder, EngineChanges changes) {
        if (registry.find(name).isEmpty()) {
            return null;
        }
        registry.release(name, holder);
        changes.undoOnRollback(() -> registry.claimExclusive(name, holder));
        RegisteredDevice entry = registry.unregister(name);
        changes.undoOnRollback(() -> registry.reinstate(entry));
        return entry.device(MappedDevice.class).orElse(null);
    }

    /** Keeps the name of a snapshot that is not live, with {@code state}, unless it is registered already. */
    void reserve(String snapshot, ObjectState state) {
        if (registry.find(snapshot).isEmpty()) {
            registry.reserve(snapshot, DeviceKind.SNAPSHOT, state);
        }
    }
}
