package io.blockwork.dm.app;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.dm.DeviceLookup;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.shared.assembly.Ref;
import io.blockwork.shared.consistency.EngineChanges;
import io.blockwork.shared.device.Claim;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * What mapped devices' tables see of the device name space and what they hold in it.
 *
 * <p>Tables name devices through {@link #lookup()}: any live block device in the registry (disks,
 * arrays, other mapped devices). A mapped device holds every device its live and its inactive
 * table use: it claims each in the registry as {@code dm <name>} ({@link Claim#TABLE}: tables share
 * what they map, an owner's device is refused), so none of them can be deleted
 * under it, and opens the mapped devices among them, as a kernel table opens its devices (that
 * is the open count {@code dmsetup info} shows).
 */
@Component
class DmHolds {

    private final DeviceRegistry registry;

    DmHolds(DeviceRegistry registry) {
        this.registry = registry;
    }

    /**
     * Table device names resolve to live devices a table may map: checked before the target is
     * built on the device (a snapshot target writes its store's header as it is built), so a
     * device an array, pool or snapshot owns, a hidden device, or one exported for writing is
     * refused with device-busy before anything touches it.
     */
    DeviceLookup lookup() {
        return name -> {
            RegisteredDevice entry = registry.find(name).filter(RegisteredDevice::live).orElse(null);
            if (entry == null) {
                return null;
            }
            registry.requireClaimable(name, Claim.TABLE);
            return entry.device();
        };
    }

    /**
     * The devices {@code device}'s tables use, by name, with their registry entries. A device the
     * registry no longer has under that name (removed by force) is left out: nothing can be held there.
     */
    Map<String, RegisteredDevice> uses(MappedDevice device) {
        Map<String, RegisteredDevice> out = new TreeMap<>();
        for (BlockDevice d : device.referencedDevices()) {
            registry.find(d.name()).filter(e -> e.device() == d).ifPresent(e -> out.put(e.name(), e));
        }
        return out;
    }

    /** {@link #uses} as the record keeps it: {@code kind:name}, space-separated. */
    String usesText(MappedDevice device) {
        return uses(device).values().stream().map(e -> e.kind().label() + ":" + e.name())
                .collect(Collectors.joining(" "));
    }

    /** What a record's {@code uses} names, as assembly references. */
    static Set<Ref> refs(String usesText) {
        return Arrays.stream(usesText.strip().split(" +")).filter(s -> !s.isEmpty())
                .map(s -> new Ref(s.substring(0, s.indexOf(':')), s.substring(s.indexOf(':') + 1)))
                .collect(Collectors.toSet());
    }

    /**
     * Moves {@code holder}'s holds from {@code before} to {@code after}: claims (and opens) what is
     * new, releases what is gone; undone if the operation does not commit.
     */
    void update(String holder, Set<String> before, Set<String> after, EngineChanges changes) {
        Set<String> gained = new HashSet<>(after);
        gained.removeAll(before);
        Set<String> lost = new HashSet<>(before);
        lost.removeAll(after);
        hold(holder, gained);
        changes.undoOnRollback(() -> release(holder, gained));
        release(holder, lost);
        changes.undoOnRollback(() -> hold(holder, lost));
    }

    /** Claims and opens {@code names} for mapped device {@code holder}. */
    void hold(String holder, Collection<String> names) {
        for (String name : names) {
            registry.claim(name, holderOf(holder), Claim.TABLE);
            if (registry.require(name).device() instanceof MappedDevice m) {
                m.open();
            }
        }
    }

    /** Releases and closes what {@link #hold} took. */
    void release(String holder, Collection<String> names) {
        for (String name : names) {
            registry.release(name, holderOf(holder));
            registry.find(name, MappedDevice.class).filter(m -> m.info().openCount() > 0)
                    .ifPresent(MappedDevice::release);
        }
    }

    /** The holds of a renamed mapped device follow its name; open counts do not change. */
    void rename(String from, String to, Collection<String> names, EngineChanges changes) {
        move(names, from, to);
        changes.undoOnRollback(() -> move(names, to, from));
    }

    private void move(Collection<String> names, String from, String to) {
        for (String name : names) {
            registry.release(name, holderOf(from));
            registry.claim(name, holderOf(to), Claim.TABLE);
        }
    }

    static Holder holderOf(String dmName) {
        return new Holder(DeviceKind.DM.label(), dmName);
    }
}
