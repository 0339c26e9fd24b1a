package io.blockwork.engine.dm.targets;

import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.TargetRegistry;
import io.blockwork.engine.dm.targets.logwrites.LogWritesTarget;
import io.blockwork.engine.dm.targets.mirror.MirrorTarget;

/** The target types Blockwork ships, registered here and nowhere else. */
public final class Targets {

    public static final TargetRegistry REGISTRY = TargetRegistry.of(
            LinearTarget.TYPE,
            StripedTarget.TYPE,
            ZeroTarget.TYPE,
            ErrorTarget.TYPE,
            DelayTarget.TYPE,
            FlakeyTarget.TYPE,
            MirrorTarget.TYPE,
            SnapshotOriginTarget.TYPE,
            SnapshotTarget.TYPE,
            SnapshotMergeTarget.TYPE,
            LogWritesTarget.TYPE,
            ThinPoolTarget.TYPE,
            ThinTarget.TYPE);

    private Targets() {}

    /**
     * Production configuration: every standard target, the shared timer, the system clock,
     * {@code per-device} flushes, a new origin registry and {@code fine} snapshot locking. Build it
     * once per engine: mapped devices find each other's origins and snapshots through it.
     */
    public static DmConfig config() {
        return DmConfig.of(REGISTRY);
    }
}
