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
 * @param copiesInFlight chunks each snapshot's copier reads or writes at once
 * @param copierThreads copier threads of a {@code fine} snapshot (chunks spread over them); a
 *        {@code global} snapshot always has one, as before seed 004
 */
public record SnapshotConfig(Origins origins, SnapshotLocking.Kind locking, long cowThrottleBytes, int copiesInFlight,
                             int copierThreads) {

    public static final long DEFAULT_THROTTLE_BYTES = 2048L * 4096;
    public static final int DEFAULT_COPIES_IN_FLIGHT = 64;
    /** Two: on a small machine more threads only add hand-offs; see docs/engine/snapshot.md. */
    public static final int DEFAULT_COPIER_THREADS = 2;

    public SnapshotConfig {
        Objects.requireNonNull(origins, "origins");
        Objects.requireNonNull(locking, "locking");
        if (cowThrottleBytes < 0 || copiesInFlight < 1 || copierThreads < 1 || copierThreads > 64) {
            throw new IllegalArgumentException(
                    "throttle must not be negative, copies in flight at least 1 and copier threads 1 to 64");
        }
    }

    /** A fresh registry, {@code fine} locking, the default throttle. */
    public static SnapshotConfig defaults() {
        return new SnapshotConfig(new Origins(), SnapshotLocking.Kind.FINE, DEFAULT_THROTTLE_BYTES,
                DEFAULT_COPIES_IN_FLIGHT, DEFAULT_COPIER_THREADS);
    }

    public SnapshotConfig withLocking(SnapshotLocking.Kind kind) {
        return new SnapshotConfig(origins, kind, cowThrottleBytes, copiesInFlight, copierThreads);
    }

    public SnapshotConfig withCowThrottleBytes(long bytes) {
        return new SnapshotConfig(origins, locking, bytes, copiesInFlight, copierThreads);
    }

    public SnapshotConfig withCopierThreads(int threads) {
        return new SnapshotConfig(origins, locking, cowThrottleBytes, copiesInFlight, threads);
    }

    /** Copier threads a new snapshot gets: {@link #copierThreads} under {@code fine}, one under {@code global}. */
    int copierThreadsFor(SnapshotLocking.Kind kind) {
        return kind == SnapshotLocking.Kind.GLOBAL ? 1 : copierThreads;
    }

    /** The copier configuration for a snapshot of {@code chunkBytes} chunks. */
    RegionCopier.Config copier(long chunkBytes) {
        return new RegionCopier.Config(chunkBytes, copiesInFlight, BatchDispatch.Kind.EXPLICIT, 0);
    }
}
