package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.copy.RegionCopier;
import java.util.Objects;

/**
 * How snapshots are built: the registry that lets origins and snapshots find each other (one per
 * engine, shared by every mapped device built with configs derived from the same one), the
 * locking strategy new snapshots get, the COW copy throttle, and the copier each snapshot runs.
 *
 * @param origins the origin registry
 * @param locking {@code fine} (default) or {@code global}, for snapshots created from now on
 * @param cowThrottleBytes bytes being copied beyond which writes wait (the kernel's 2048 chunks)
 * @param copiesInFlight chunks each snapshot's merge copier reads or writes at once
 */
public record SnapshotConfig(Origins origins, SnapshotLocking.Kind locking, long cowThrottleBytes, int copiesInFlight) {

    public static final long DEFAULT_THROTTLE_BYTES = 2048L * 4096;
    public static final int DEFAULT_COPIES_IN_FLIGHT = 64;

    public SnapshotConfig {
        Objects.requireNonNull(origins, "origins");
        Objects.requireNonNull(locking, "locking");
        if (cowThrottleBytes < 0 || copiesInFlight < 1) {
            throw new IllegalArgumentException("throttle must not be negative and copies in flight at least 1");
        }
    }

    /** A fresh registry, {@code fine} locking, the default throttle. */
    public static SnapshotConfig defaults() {
        return new SnapshotConfig(new Origins(), SnapshotLocking.Kind.FINE, DEFAULT_THROTTLE_BYTES,
                DEFAULT_COPIES_IN_FLIGHT);
    }

    public SnapshotConfig withLocking(SnapshotLocking.Kind kind) {
        return new SnapshotConfig(origins, kind, cowThrottleBytes, copiesInFlight);
    }

    public SnapshotConfig withCowThrottleBytes(long bytes) {
        return new SnapshotConfig(origins, locking, bytes, copiesInFlight);
    }

    /** The copier configuration for a snapshot of {@code chunkBytes} chunks. */
    RegionCopier.Config copier(long chunkBytes) {
        return new RegionCopier.Config(chunkBytes, copiesInFlight, BatchDispatch.Kind.EXPLICIT, 0);
    }
}
