package io.blockwork.shared.device;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.shared.assembly.ObjectState;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One name in the device name space: its kind, its live engine object (null when the configured
 * object could not be assembled and only holds its name), its state and its holders with how each
 * holds it. Immutable: the registry replaces the whole entry on every change, so a reader always
 * sees a consistent one.
 */
public record RegisteredDevice(String name, DeviceKind kind, BlockDevice device, ObjectState state,
                               Map<Holder, Claim> claims) {

    public RegisteredDevice {
        claims = Map.copyOf(claims);
    }

    public boolean live() {
        return device != null;
    }

    /** Everything that holds the device, like /sys/block/X/holders. */
    public Set<Holder> holders() {
        return claims.keySet();
    }

    /** The holder that owns the device alone (a pool, an array, a snapshot), or null. */
    /** The names of its holders of {@code kind} ("export": the exports of it), sorted. */
    public List<String> holderNames(String kind) {
        return holders().stream().filter(h -> h.kind().equals(kind)).map(Holder::name).sorted().toList();
    }

    public Holder exclusive() {
        return claims.entrySet().stream().filter(e -> e.getValue().isOwner()).map(Map.Entry::getKey)
                .findFirst().orElse(null);
    }

    /** Hidden devices (a volume's origin, a snapshot's store) belong to the engine's own stacking. */
    public boolean hidden() {
        return kind == DeviceKind.HIDDEN;
    }

    /** The live engine object if it is a {@code type} (a mapped device, a disk, an array); empty otherwise. */
    public <T extends BlockDevice> Optional<T> device(Class<T> type) {
        return type.isInstance(device) ? Optional.of(type.cast(device)) : Optional.empty();
    }

    RegisteredDevice withClaims(Map<Holder, Claim> newClaims) {
        return new RegisteredDevice(name, kind, device, state, newClaims);
    }

    RegisteredDevice renamed(String newName) {
        return new RegisteredDevice(newName, kind, device, state, claims);
    }
}
