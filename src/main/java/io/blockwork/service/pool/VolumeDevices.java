package io.blockwork.service.pool;

import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.DeviceLookup;
import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.TableSpec;
import io.blockwork.engine.dm.targets.Targets;
import io.blockwork.service.device.DeviceRegistry;
import io.blockwork.service.device.RegisteredDevice;
import io.blockwork.service.problem.Problem;
import io.blockwork.service.problem.ProblemException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * A volume's engine object: a mapped device of {@code linear} targets over its pool's device, one
 * per segment, as LVM builds a logical volume. Empty flushes use the {@code per-device} strategy,
 * so a volume of a hundred segments sends one flush to its pool's device, not a hundred.
 *
 * <p>A new size goes in online ({@link #swap}): the new table is loaded into the inactive slot,
 * the device suspended (new I/O is held, I/O in flight completes), and resumed, which swaps the
 * table in and lets the held I/O through it. Nothing fails on the way; a suspend waits at most
 * {@code blockwork.dm.suspend-timeout} (as mapped devices do) and gives up cleanly after it.
 */
@Component
class VolumeDevices {

    /**
     * One configuration, so one snapshot origin registry, for every volume and snapshot device:
     * snapshot targets find their origin's snapshot-origin target through it.
     */
    static final DmConfig CONFIG = Targets.config();

    private final DeviceRegistry registry;
    final Duration suspendTimeout;

    VolumeDevices(DeviceRegistry registry, @Value("${blockwork.dm.suspend-timeout:30s}") Duration suspendTimeout) {
        this.registry = registry;
        this.suspendTimeout = suspendTimeout;
    }

    /** The table of a volume: one linear target per segment, in sectors. */
    static TableSpec table(String poolDevice, long extentSizeBytes, List<Segment> segments) {
        long sectorsPerExtent = extentSizeBytes >> 9;
        List<TableSpec.Line> lines = new ArrayList<>(segments.size());
        for (Segment s : segments) {
            lines.add(new TableSpec.Line(lines.size() + 1, s.ownerStart() * sectorsPerExtent,
                    s.count() * sectorsPerExtent, "linear",
                    List.of(poolDevice, Long.toString(s.poolStart() * sectorsPerExtent))));
        }
        return new TableSpec(lines);
    }

    /** Builds a volume's device with its table live; not registered yet. */
    MappedDevice create(String name, String poolDevice, long extentSizeBytes, List<Segment> segments) {
        return create(name, table(poolDevice, extentSizeBytes, segments));
    }

    /** Builds a device of a volume or snapshot with {@code table} live; not registered yet. */
    MappedDevice create(String name, TableSpec table) {
        try {
            return MappedDevice.create(name, null, table, lookup(), CONFIG);
        } catch (TableException e) {
            throw new IllegalStateException("the table of " + name + " is refused: " + e.getMessage(), e);
        }
    }

    /**
     * Makes the table of {@code segments} live without failing I/O (see the class comment). If a
     * step fails the device is put back as it was and the failure is thrown as a problem.
     */
    void swap(MappedDevice d, String poolDevice, long extentSizeBytes, List<Segment> segments) {
        swap(d, table(poolDevice, extentSizeBytes, segments));
    }

    /** Makes {@code table} live in {@code d} online, as {@link #swap(MappedDevice, String, long, List)} does. */
    void swap(MappedDevice d, TableSpec table) {
        String before = d.tableText();
        try {
            d.load(table, lookup());
            d.suspend(false, suspendTimeout);
            d.resume();
        } catch (DmException e) {
            restore(d, before);
            throw new ProblemException(Problem.CONFLICT, "cannot change the table of volume " + d.name() + ": "
                    + e.getMessage()).causedBy(e);
        }
    }

    /** Brings {@code d} back to the live table {@code tableText}, active, with nothing loaded. */
    void restore(MappedDevice d, String tableText) {
        if (!d.tableText().equals(tableText)) {
            d.load(tableText, lookup());
            d.resume();
        }
        d.clear();
        if (d.state() == DeviceInfo.State.SUSPENDED) {
            d.resume();
        }
    }

    /** Suspends before a removal: new I/O is held (and fails at the removal), I/O in flight completes. */
    void suspendForRemoval(MappedDevice d) {
        try {
            d.suspend(true, suspendTimeout);
        } catch (DmException e) {
            throw new ProblemException(Problem.CONFLICT, "cannot remove volume " + d.name() + ": " + e.getMessage())
                    .causedBy(e);
        }
    }

    /** The live mapped device of volume {@code name}: conflict if it is not assembled. */
    MappedDevice live(String name) {
        if (registry.device(name) instanceof MappedDevice d) {
            return d;
        }
        throw new IllegalStateException("volume " + name + " is registered without its mapped device");
    }

    /** Table device names resolve to live devices of any kind. */
    DeviceLookup lookup() {
        return name -> registry.find(name).filter(RegisteredDevice::live).map(RegisteredDevice::device).orElse(null);
    }
}
