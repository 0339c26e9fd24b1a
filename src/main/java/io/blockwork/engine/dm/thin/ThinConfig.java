package io.blockwork.engine.dm.thin;

import java.time.Duration;
import java.util.Objects;

/**
 * How thin pools are built: the registry that lets thin targets find their pool (one per engine,
 * in the engine's {@code DmConfig}), how long writes queue when the data device is full, how often
 * a pool commits on its own, and the B-tree node capacity for newly formatted metadata.
 *
 * @param pools the pool registry
 * @param noSpaceTimeout how long a write waiting for data space queues before it fails (dm-thin's
 *        {@code no_space_timeout}, 60 s); zero queues without limit
 * @param commitPeriod how often dirty metadata is committed without a flush (dm-thin: 1 s)
 * @param nodeCapacity entries per node when formatting ({@link PoolMetadata#DEFAULT_NODE_CAPACITY};
 *        tests use a few to grow deep trees from few mappings)
 */
public record ThinConfig(ThinPools pools, Duration noSpaceTimeout, Duration commitPeriod, int nodeCapacity) {

    public static final Duration DEFAULT_NO_SPACE_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_COMMIT_PERIOD = Duration.ofSeconds(1);

    public ThinConfig {
        Objects.requireNonNull(pools, "pools");
        Objects.requireNonNull(noSpaceTimeout, "noSpaceTimeout");
        Objects.requireNonNull(commitPeriod, "commitPeriod");
        if (noSpaceTimeout.isNegative() || commitPeriod.isNegative() || commitPeriod.isZero()) {
            throw new IllegalArgumentException("timeouts must not be negative, and the commit period must be positive");
        }
        if (nodeCapacity < 3 || nodeCapacity > PoolMetadata.DEFAULT_NODE_CAPACITY) {
            throw new IllegalArgumentException("node capacity must be 3.." + PoolMetadata.DEFAULT_NODE_CAPACITY);
        }
    }

    public static ThinConfig defaults() {
        return new ThinConfig(new ThinPools(), DEFAULT_NO_SPACE_TIMEOUT, DEFAULT_COMMIT_PERIOD,
                PoolMetadata.DEFAULT_NODE_CAPACITY);
    }

    public ThinConfig withNoSpaceTimeout(Duration d) {
        return new ThinConfig(pools, d, commitPeriod, nodeCapacity);
    }

    public ThinConfig withCommitPeriod(Duration d) {
        return new ThinConfig(pools, noSpaceTimeout, d, nodeCapacity);
    }

    public ThinConfig withNodeCapacity(int n) {
        return new ThinConfig(pools, noSpaceTimeout, commitPeriod, n);
    }
}
