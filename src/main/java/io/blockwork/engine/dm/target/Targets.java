package io.blockwork.engine.dm.target;

import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.TargetRegistry;
import io.blockwork.engine.dm.target.mirror.MirrorTarget;

/** The target types Blockwork ships, registered here and nowhere else. */
public final class Targets {

    public static final TargetRegistry REGISTRY = TargetRegistry.of(
            LinearTarget.TYPE,
            StripedTarget.TYPE,
            ZeroTarget.TYPE,
            ErrorTarget.TYPE,
            DelayTarget.TYPE,
            FlakeyTarget.TYPE,
            MirrorTarget.TYPE);

    private Targets() {}

    /** Production configuration: every standard target, the shared timer, the system clock, {@code per-device} flushes. */
    public static DmConfig config() {
        return DmConfig.of(REGISTRY);
    }
}
