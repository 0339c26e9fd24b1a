package io.blockwork.shared.device;

import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.DeviceLookup;
import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.TableSpec;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Mapped devices as features build and change them: created from the service's one
 * {@link DmConfig}, with table names resolved in the device registry, and their tables swapped
 * online through {@link MappedDevice#swap}. A suspend waits at most
 * {@code blockwork.dm.suspend-timeout} (default 30 s), as mapped devices do, and gives up cleanly
 * after it.
 */
@Component
public class MappedDevices {

    private final DeviceRegistry registry;
    private final DmConfig config;
    private final Duration suspendTimeout;

    MappedDevices(DeviceRegistry registry, DmConfig config,
                  @Value("${blockwork.dm.suspend-timeout:30s}") Duration suspendTimeout) {
        this.registry = registry;
        this.config = config;
        this.suspendTimeout = suspendTimeout;
    }

    /** The service's one dm configuration. */
    public DmConfig config() {
        return config;
    }

    /** How long a suspend waits for I/O in flight. */
    public Duration suspendTimeout() {
        return suspendTimeout;
    }

    /**
     * Table device names resolve to live devices of any kind, hidden ones included: for the tables
     * features build themselves (volumes over their pool's device, snapshots over a volume's
     * origin and store). Tables users load go through the claim check instead (DmHolds).
     */
    public DeviceLookup lookup() {
        return name -> registry.find(name).filter(RegisteredDevice::live).map(RegisteredDevice::device).orElse(null);
    }

    /** A device with {@code table} live; not registered yet. A refused table is a fault of the caller's making. */
    public MappedDevice create(String name, TableSpec table) {
        try {
            return MappedDevice.create(name, null, table, lookup(), config);
        } catch (TableException e) {
            throw new IllegalStateException("the table of " + name + " is refused: " + e.getMessage(), e);
        }
    }

    /**
     * Makes {@code table} live in {@code d} without failing I/O ({@link MappedDevice#swap}); if a
     * step fails the device stays as it was and the failure is a conflict naming it.
     */
    public void swap(MappedDevice d, TableSpec table) {
        try {
            d.swap(table, lookup(), suspendTimeout);
        } catch (DmException e) {
            throw new ProblemException(Problem.CONFLICT, "cannot change the table of " + d.name() + ": "
                    + e.getMessage()).causedBy(e);
        }
    }

    /** The undo of a swap: {@code d} back to the live table {@code tableText}, active, nothing loaded. */
    public void restore(MappedDevice d, String tableText) {
        if (!d.tableText().equals(tableText)) {
            d.swap(TableSpec.parse(tableText), lookup(), null);
        }
        d.clear();
        if (d.state() == DeviceInfo.State.SUSPENDED) {
            d.resume();
        }
    }

    /** Suspends before a removal: new I/O is held (and fails at the removal), I/O in flight completes. */
    public void suspendForRemoval(MappedDevice d) {
        try {
            d.suspend(true, suspendTimeout);
        } catch (DmException e) {
            throw new ProblemException(Problem.CONFLICT, "cannot remove " + d.name() + ": " + e.getMessage())
                    .causedBy(e);
        }
    }

    /** The live mapped device registered as {@code name}. */
    public MappedDevice live(String name) {
        if (registry.device(name) instanceof MappedDevice d) {
            return d;
        }
        throw new IllegalStateException(name + " is registered without its mapped device");
    }
}
