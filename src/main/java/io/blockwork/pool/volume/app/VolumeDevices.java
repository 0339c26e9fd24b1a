package io.blockwork.pool.volume.app;

import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.shared.device.MappedDevices;
import io.blockwork.pool.app.Segment;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * A volume's engine object: a mapped device of {@code linear} targets over its pool's device, one
 * per segment ({@link Segment#table}), as LVM builds a logical volume. Empty flushes use the
 * {@code per-device} strategy, so a volume of a hundred segments sends one flush to its pool's
 * device, not a hundred. A new size goes in online ({@link MappedDevices#swap}).
 */
@Component
class VolumeDevices {

    private final MappedDevices devices;

    VolumeDevices(MappedDevices devices) {
        this.devices = devices;
    }

    /** Builds a volume's device with its table live; not registered yet. */
    MappedDevice create(String name, String poolDevice, long extentSizeBytes, List<Segment> segments) {
        return devices.create(name, Segment.table(poolDevice, extentSizeBytes, segments));
    }

    /** Makes the table of {@code segments} live without failing I/O; on failure the device is as it was. */
    void swap(MappedDevice d, String poolDevice, long extentSizeBytes, List<Segment> segments) {
        devices.swap(d, Segment.table(poolDevice, extentSizeBytes, segments));
    }

    /** The undo of {@link #swap}. */
    void restore(MappedDevice d, String tableText) {
        devices.restore(d, tableText);
    }

    void suspendForRemoval(MappedDevice d) {
        devices.suspendForRemoval(d);
    }

    /** The live mapped device of volume {@code name}. */
    MappedDevice live(String name) {
        return devices.live(name);
    }
}
