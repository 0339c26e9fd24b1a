package io.blockwork.service.device;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.service.assembly.ObjectState;
import java.util.Set;

/**
 * One name in the device name space: its kind, its live engine object (null when the configured
 * object could not be assembled and only holds its name), its state and its holders.
 * Immutable: the registry replaces the whole entry on every change, so a reader always sees a
 * consistent one.
 */
public record RegisteredDevice(String name, DeviceKind kind, BlockDevice device, ObjectState state,
                               Set<Holder> holders) {

    public RegisteredDevice {
        holders = Set.copyOf(holders);
    }

    public boolean live() {
        return device != null;
    }

    RegisteredDevice withHolders(Set<Holder> newHolders) {
        return new RegisteredDevice(name, kind, device, state, newHolders);
    }

    RegisteredDevice renamed(String newName) {
        return new RegisteredDevice(newName, kind, device, state, holders);
    }
}
