package io.blockwork.shared.device;

import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * The one name space of block devices, across every kind, and who uses each device.
 *
 * <p>Every configured device has an entry: live ones with their engine object, and ones that
 * could not be assembled with none, so their name stays taken until they are deleted. Features
 * register what they create and claim what they use ({@link #claim}); a device with holders
 * cannot be unregistered.
 *
 * <p>Ownership: this is the one place that decides who may use a device. Every claim states how
 * its holder uses the device ({@link Claim}: an owner, a table, an outside reader or writer), and
 * {@link #claim}, {@link #requireClaimable} and {@link #writable} check it against the claims
 * already there, so a device an array, pool, snapshot or mapped device uses refuses every other
 * writer (exports, tables, the REST data endpoints) with device-busy naming the holder.
 *
 * <p>Locking: changes are made under {@link #lock}, which makes check-then-act steps (is the name
 * free? has it holders?) atomic. Entries are immutable and published through a concurrent map, so
 * lookups — one per I/O request — take no lock.
 */
@Component
public class DeviceRegistry {

    private final ConcurrentHashMap<String, RegisteredDevice> entries = new ConcurrentHashMap<>();
    private final Object lock = new Object();

    /** Adds a live device; its engine object must already carry {@code name}. */
    public void register(String name, DeviceKind kind, BlockDevice device) {
        if (!name.equals(device.name())) {
            throw new IllegalArgumentException("device " + device.name() + " registered as " + name);
        }
        add(new RegisteredDevice(name, kind, device, ObjectState.RUNNING, Map.of()));
    }

    /** Keeps {@code name} taken by a configured device that has no live engine object. */
    public void reserve(String name, DeviceKind kind, ObjectState state) {
        add(new RegisteredDevice(name, kind, null, state, Map.of()));
    }

    private void add(RegisteredDevice entry) {
        DeviceNames.require(entry.name(), "name");
        synchronized (lock) {
            RegisteredDevice existing = entries.get(entry.name());
            if (existing != null) {
                throw nameTaken(entry.name(), existing);
            }
            entries.put(entry.name(), entry);
        }
    }

    /** Puts back an entry, holders and all, that {@link #unregister} took out: the undo of a removal. */
    public void reinstate(RegisteredDevice entry) {
        add(entry);
    }

    /** Throws name-taken if {@code name} is in use; for checks before an engine object is built. */
    public void requireFree(String name) {
        RegisteredDevice existing = entries.get(name);
        if (existing != null) {
            throw nameTaken(name, existing);
        }
    }

    private static ProblemException nameTaken(String name, RegisteredDevice existing) {
        return new ProblemException(Problem.NAME_TAKEN,
                "the name '" + name + "' is taken: there is " + article(existing.kind().label()) + " "
                        + existing.kind().label() + " of that name")
                .atField("name").with("takenBy", existing.kind().label());
    }

    /** "a" or "an", as the kind's label is spoken ("an array", "a disk"). */
    static String article(String label) {
        return !label.isEmpty() && "aeiou".indexOf(label.charAt(0)) >= 0 ? "an" : "a";
    }

    /** Removes a device; refused with device-busy while anything holds it. */
    public RegisteredDevice unregister(String name) {
        synchronized (lock) {
            RegisteredDevice entry = require(name);
            if (!entry.holders().isEmpty()) {
                List<String> holders = names(entry.holders());
                throw new ProblemException(Problem.DEVICE_BUSY,
                        entry.kind().label() + " " + name + " is in use by " + String.join(", ", holders))
                        .with("holders", holders);
            }
            entries.remove(name);
            return entry;
        }
    }

    /**
     * Renames a device nothing holds: holders (exports, tables) refer to it by name, so a held
     * device is refused with device-busy naming them; a taken new name is refused on {@code field}.
     */
    public void renameUnheld(String what, String from, String to, String field) {
        RegisteredDevice entry = require(from);
        if (!entry.holders().isEmpty()) {
            List<String> holders = entry.holders().stream().map(Holder::toString).sorted().toList();
            throw new ProblemException(Problem.DEVICE_BUSY, what + " " + from + " is used by " + String.join(", ", holders)
                    + (holders.size() == 1 ? ", which refers" : ", which refer") + " to it by name; remove "
                    + (holders.size() == 1 ? "it" : "them") + " first").with("holders", holders);
        }
        try {
            requireFree(to);
        } catch (ProblemException e) {
            throw e.atField(field);
        }
        rename(from, to);
    }

    /** Moves a device to a new name, holders and all; renames its engine object too. */
    public void rename(String from, String to) {
        DeviceNames.require(to, "name");
        synchronized (lock) {
            RegisteredDevice entry = require(from);
            if (from.equals(to)) {
                return;
            }
            RegisteredDevice existing = entries.get(to);
            if (existing != null) {
                throw nameTaken(to, existing);
            }
            if (entry.device() instanceof AbstractBlockDevice d) {
                d.rename(to);
            }
            entries.put(to, entry.renamed(to));
            entries.remove(from);
        }
    }

    /**
     * Records that {@code holder} holds device {@code name} as {@code claim}. Refused with
     * device-busy, naming the holders in the way, unless {@link Claim} lets the two share; a
     * hidden device takes no claim from outside. The same holder claiming again replaces its claim.
     */
    public void claim(String name, Holder holder, Claim claim) {
        synchronized (lock) {
            RegisteredDevice entry = require(name);
            check(entry, holder, claim);
            Map<Holder, Claim> more = new HashMap<>(entry.claims());
            more.put(holder, claim);
            entries.put(name, entry.withClaims(more));
        }
    }

    /**
     * Claims device {@code name} for {@code holder} alone ({@link Claim#OWNER}), as a pool does its
     * device: refused while anything else holds it, and later claims by others are refused until
     * {@code holder} releases it.
     */
    public void claimExclusive(String name, Holder holder) {
        claim(name, holder, Claim.OWNER);
    }

    /**
     * Throws device-busy unless {@code name} could be claimed as {@code claim} now: the check a
     * table makes before it builds a target on the device (a target may write while it is built).
     */
    public void requireClaimable(String name, Claim claim) {
        check(require(name), null, claim);
    }

    /**
     * The live device for a write from outside the engine's stacking (the REST data endpoints,
     * workloads): refused with device-busy while an array, pool, snapshot or mapped device holds
     * it, unless {@code raw} is asked for and every such holder allows it, and always for a hidden device.
     */
    public BlockDevice writable(String name, boolean raw) {
        RegisteredDevice entry = require(name);
        check(entry, null, raw ? Claim.RAW_WRITER : Claim.WRITER);
        return device(entry);
    }

    /**
     * The live device for a read from outside (the REST data endpoint): any device but a hidden
     * one, which is part of its holder. Reads take no claim, so a held device may be read.
     */
    public BlockDevice readable(String name) {
        RegisteredDevice entry = require(name);
        refuseHidden(entry);
        return device(entry);
    }

    /** Drops a claim, whatever it was; releasing one that is not there is harmless. */
    public void release(String name, Holder holder) {
        synchronized (lock) {
            RegisteredDevice entry = entries.get(name);
            if (entry == null) {
                return;
            }
            Map<Holder, Claim> fewer = new HashMap<>(entry.claims());
            fewer.remove(holder);
            entries.put(name, entry.withClaims(fewer));
        }
    }

    /** The one decision who may use a device: see {@link Claim}. */
    private static void check(RegisteredDevice entry, Holder holder, Claim claim) {
        if (claim.outside()) {
            refuseHidden(entry);
        }
        List<Holder> inTheWay = entry.claims().entrySet().stream()
                .filter(e -> !e.getKey().equals(holder) && !claim.compatibleWith(e.getValue()))
                .map(Map.Entry::getKey).toList();
        if (inTheWay.isEmpty()) {
            return;
        }
        List<String> names = names(inTheWay);
        String why = switch (claim) {
            case OWNER, OWNER_ALLOWING_RAW -> "; " + (holder == null ? "it" : holder) + " needs a device nothing else uses";
            case WRITER -> inTheWay.stream().allMatch(h -> entry.claims().get(h).allowsRaw())
                    ? "; ask for raw access (raw=true) to write it anyway" : "";
            case RAW_WRITER -> ", which " + (names.size() == 1 ? "does" : "do") + " not allow raw access";
            default -> "";
        };
        throw new ProblemException(Problem.DEVICE_BUSY, entry.kind().label() + " " + entry.name()
                + " is in use by " + String.join(", ", names) + why).with("holders", names);
    }

    private static void refuseHidden(RegisteredDevice entry) {
        if (entry.hidden()) {
            List<String> holders = names(entry.holders());
            throw new ProblemException(Problem.DEVICE_BUSY, entry.name() + " is a hidden device of "
                    + String.join(", ", holders) + ": it is part of its holder, never read or written from outside")
                    .with("holders", holders);
        }
    }

    private static List<String> names(Collection<Holder> holders) {
        return holders.stream().map(Holder::toString).sorted().toList();
    }

    public Optional<RegisteredDevice> find(String name) {
        return Optional.ofNullable(name == null ? null : entries.get(name));
    }

    /** The live engine object of {@code name} if it is a {@code type}; empty if there is none, or of another type. */
    public <T extends BlockDevice> Optional<T> find(String name, Class<T> type) {
        return find(name).flatMap(e -> e.device(type));
    }

    /** The entry for {@code name}, or not-found. */
    public RegisteredDevice require(String name) {
        return find(name).orElseThrow(() -> ProblemException.notFound("block device", name));
    }

    /** The live engine object of {@code name}: not-found if there is none, conflict if it is not assembled. */
    public BlockDevice device(String name) {
        return device(require(name));
    }

    private static BlockDevice device(RegisteredDevice entry) {
        if (!entry.live()) {
            throw new ProblemException(Problem.CONFLICT, entry.kind().label() + " " + entry.name()
                    + " is not active: " + entry.state().reason());
        }
        return entry.device();
    }

    /** Every entry, by name. */
    public List<RegisteredDevice> list() {
        return entries.values().stream().sorted(Comparator.comparing(RegisteredDevice::name)).toList();
    }
}
