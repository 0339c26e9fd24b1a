package io.blockwork.service.device;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.service.assembly.ObjectState;
import java.util.Optional;
import java.util.Set;

/**
 * One name in the device name space: its kind, its live engine object (null when the configured
 * object could not be assembled and only holds its name), its state and its holders.
 * Immutable: the registry replaces the whole entry on every change, so a reader always sees a
 * consistent one.
 *
 * @param exclusive the holder that claimed the device for itself alone (a pool), or null; it is
 *                  also among {@code holders}
 */
public record RegisteredDevice(String name, DeviceKind kind, BlockDevice device, ObjectState state,
                               Set<Holder> holders, Holder exclusive) {

    public RegisteredDevice {
        holders = Set.copyOf(holders);
    }

    public RegisteredDevice(String name, DeviceKind kind, BlockDevice device, ObjectState state, Set<Holder> holders) {
        this(name, kind, device, state, holders, null);
    }

    public boolean live() {
        return device != null;
    }

    /** The live engine object if it is a {@code type} (a mapped device, a disk, an array); empty otherwise. */
    public <T extends BlockDevice> Optional<T> device(Class<T> type) {
        return type.isInstance(device) ? Optional.of(type.cast(device)) : Optional.empty();
    }

    RegisteredDevice withHolders(Set<Holder> newHolders, Holder newExclusive) {
        return new RegisteredDevice(name, kind, device, state, newHolders, newExclusive);
    }

    RegisteredDevice renamed(String newName) {
        return new RegisteredDevice(newName, kind, device, state, holders, exclusive);
    }
}
