package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.StatusType;
import java.util.List;

/**
 * {@code core <region size> [[no]sync]}: the region log in memory. A new table starts with every
 * region out of sync (a full initial sync) unless {@code nosync} says the legs agree; the state
 * lives as long as the table, so a reload starts over.
 */
final class CoreLog extends DirtyLog {

    private boolean loaded;

    CoreLog(long regionSectors, long regionCount, Sync sync) {
        super(regionSectors, regionCount, sync);
    }

    /** The first resume sets the bits; later ones (suspend, resume without a reload) keep them. */
    @Override
    void resume(MirrorIo io) {
        if (!loaded) {
            clean.fill(sync == Sync.NONE);
            loadSyncFromClean();
            loaded = true;
        }
    }

    @Override
    boolean flush(MirrorIo io) {
        return true;
    }

    @Override
    boolean persistent() {
        return false;
    }

    @Override
    BlockDevice device() {
        return null;
    }

    @Override
    String status(StatusType type) {
        return switch (type) {
            case INFO -> "1 core";
            case TABLE -> "core " + (1 + syncArgs()) + " " + regionAndSync();
        };
    }

    @Override
    List<DeviceRange> devices() {
        return List.of();
    }
}
