package io.blockwork.engine.dm.targets;

import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.Table;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.thin.Pool;
import io.blockwork.engine.dm.thin.PoolFeatures;
import java.time.Duration;
import java.util.Optional;

/**
 * The thin-provisioning operations a service performs, from plain values, in the order dm needs
 * them (what lvm does with dmsetup):
 * <ul>
 *   <li>a thin pool is a mapped device with a {@link #poolTable} over a metadata and a data device;
 *   <li>a thin volume is {@code create_thin} on the pool, then a mapped device with a
 *       {@link #thinTable};
 *   <li>{@link #snapshot} suspends the origin (no write in flight), sends {@code create_snap},
 *       resumes it; the snapshot is then a thin device like any other;
 *   <li>{@link #pool} and {@link #thin} read a pool's usage and a thin device's mapped blocks.
 * </ul>
 */
public final class Thins {

    private Thins() {}

    /** {@code 0 <sectors> thin-pool <meta> <data> <block> <low water> <#features> <features>}. */
    public static String poolTable(String metadata, String data, long dataSectors, long blockSectors, long lowWaterBlocks,
                                   PoolFeatures features) {
        return "0 " + dataSectors + " thin-pool " + metadata + " " + data + " " + blockSectors + " " + lowWaterBlocks
                + " " + String.join(" ", features.args()) + "\n";
    }

    /** {@code 0 <sectors> thin <pool> <id>}. */
    public static String thinTable(String pool, long id, long sectors) {
        return "0 " + sectors + " thin " + pool + " " + id + "\n";
    }

    /**
     * Snapshot {@code id} of thin device {@code originId}: the origin's device, if it is active, is
     * suspended across the {@code create_snap} message (dm-thin asks for this: a write in flight
     * must not straddle the moment the trees are shared).
     */
    public static void snapshot(MappedDevice pool, MappedDevice origin, long originId, long id, Duration suspendTimeout) {
        if (origin != null) {
            origin.suspend(false, suspendTimeout);
        }
        try {
            pool.message(0, "create_snap " + id + " " + originId);
        } finally {
            if (origin != null) {
                origin.resume();
            }
        }
    }

    /** The pool behind a thin-pool device's live table, if it has one. */
    public static Optional<Pool> pool(MappedDevice device) {
        return target(device, ThinPoolTarget.class).map(ThinPoolTarget::pool);
    }

    /** The thin target of a thin device's live table, if it has one. */
    public static Optional<ThinTarget> thin(MappedDevice device) {
        return target(device, ThinTarget.class);
    }

    private static <T extends Target> Optional<T> target(MappedDevice device, Class<T> type) {
        Table t = device.liveTable();
        if (t == null || t.entries().size() != 1) {
            return Optional.empty();
        }
        Target target = t.entries().getFirst().target();
        return type.isInstance(target) ? Optional.of(type.cast(target)) : Optional.empty();
    }
}
