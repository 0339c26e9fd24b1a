package io.blockwork.dm.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.EmptyFlush;
import io.blockwork.engine.dm.snapshot.SnapshotLocking;
import io.blockwork.engine.dm.targets.Targets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class DmStrategiesTest {

    @Test
    void absentChoicesTakeTheFixedBehaviour() {
        assertThat(new DmStrategies(null, null, null)).isEqualTo(DmStrategies.DEFAULTS);
        assertThat(DmStrategies.DEFAULTS.emptyFlush()).isSameAs(EmptyFlush.PER_DEVICE);
        assertThat(DmStrategies.DEFAULTS.batchDispatch()).isEqualTo(BatchDispatch.Kind.EXPLICIT);
        assertThat(DmStrategies.DEFAULTS.snapshotLocking()).isEqualTo(SnapshotLocking.Kind.FINE);
    }

    @Test
    void theOldBehavioursReachTheEngineConfiguration() {
        DmConfig base = Targets.config();
        DmConfig old = new DmStrategies(EmptyFlush.PER_TARGET, BatchDispatch.Kind.TIMER, SnapshotLocking.Kind.GLOBAL)
                .applyTo(base);
        assertThat(old.emptyFlush()).isSameAs(EmptyFlush.PER_TARGET);
        assertThat(old.batchDispatch()).isEqualTo(BatchDispatch.Kind.TIMER);
        assertThat(old.snapshots().locking()).isEqualTo(SnapshotLocking.Kind.GLOBAL);
        // the origin registry is shared, so snapshots of either kind find their origins
        assertThat(old.snapshots().origins()).isSameAs(base.snapshots().origins());
    }
}
