package io.blockwork.pool.volume.app;

import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.shared.consistency.EngineChanges;
import java.util.List;

/**
 * What a volume needs from its snapshots. The snapshot feature implements it, so that volumes do
 * not depend on snapshots (snapshots depend on volumes and pools).
 */
public interface VolumeSnapshots {

    /** Names of the volume's snapshots, oldest first. */
    List<String> names(VolumeEntity volume);

    /** A forced volume delete: every snapshot of the volume goes first, in the same operation. */
    void dropAll(VolumeEntity volume, EngineChanges changes);

    /** Start-up: rebuilds the snapshots of a volume whose device was just assembled, before anything uses it. */
    void assemble(VolumeEntity volume);
}
