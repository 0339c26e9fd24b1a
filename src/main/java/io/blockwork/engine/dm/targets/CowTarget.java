package io.blockwork.engine.dm.targets;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.dm.ArgBound;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.EndIo;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetArgs;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetException;
import io.blockwork.engine.dm.snapshot.Route;
import io.blockwork.engine.dm.snapshot.Snapshot;
import io.blockwork.engine.dm.snapshot.SnapshotException;
import io.blockwork.engine.dm.snapshot.SnapshotHandle;
import io.blockwork.engine.dm.snapshot.SnapshotSpec;
import io.blockwork.engine.dm.snapshot.SnapshotStatus;
import io.blockwork.engine.dm.snapshot.StoreType;
import java.util.List;

/**
 * What {@code snapshot} and {@code snapshot-merge} share: both stand on one snapshot (an origin
 * and its COW device), take the same four arguments, and hand the snapshot between tables through
 * its {@link SnapshotHandle} at resume. They differ in how they map bios and flush.
 */
abstract sealed class CowTarget implements Target permits SnapshotTarget, SnapshotMergeTarget {

    static final ArgBound CHUNK = new ArgBound(0, ArgBound.UINT_MAX, "Invalid chunk size");

    final TargetContext ti;
    final SnapshotHandle handle;
    final Snapshot snapshot;

    CowTarget(TargetContext ti, SnapshotHandle handle) {
        this.ti = ti;
        this.handle = handle;
        this.snapshot = handle.snapshot();
    }

    /** Reads the four arguments and attaches to (or creates) the snapshot they describe. */
    static SnapshotHandle open(TargetContext ti, TargetArgs args, boolean merge) throws TargetException {
        BlockDevice origin = args.readDevice("Cannot get origin device");
        BlockDevice cow = args.readDevice("Cannot get COW device");
        StoreType type;
        try {
            type = StoreType.fromCode(args.next("Missing exception store type"));
        } catch (IllegalArgumentException e) {
            throw new TargetException(e.getMessage());
        }
        long chunk = args.readUnsigned(CHUNK);
        try {
            return ti.snapshots().origins().attachSnapshot(new SnapshotSpec(origin, cow, type, chunk, merge),
                    ti.snapshots(), ti.timer());
        } catch (SnapshotException e) {
            throw new TargetException(e.getMessage());
        }
    }

    /** A snapshot route as the core's map result. */
    static MapResult mapResult(Route route, BlockDevice origin, BlockDevice cow) {
        return switch (route) {
            case Route.ToCow c -> MapResult.remap(cow, c.offset());
            case Route.ToOrigin o -> MapResult.remap(origin, o.offset());
            case Route.Held h -> MapResult.SUBMITTED;
            case Route.Failed f -> new MapResult.Completed(f.status());
        };
    }

    @Override
    public final EndIo endIo(Bio bio, IoStatus status) {
        snapshot.endIo(bio);
        return EndIo.done(status);
    }

    @Override
    public final long maxIoSectors() {
        return snapshot.chunkSectors();
    }

    @Override
    public final String status(StatusType type) {
        return switch (type) {
            case INFO -> snapshot.status().text();
            case TABLE -> snapshot.origin().name() + " " + snapshot.cow().name() + " " + handle.spec().store().code()
                    + " " + snapshot.chunkSectors();
        };
    }

    @Override
    public final List<DeviceRange> devices() {
        return List.of(new DeviceRange(snapshot.origin(), 0, ti.lengthSectors()),
                new DeviceRange(snapshot.cow(), 0, snapshot.cow().sizeBytes() >> 9));
    }

    @Override
    public final void preresume() throws TargetException {
        try {
            handle.claim(ti::triggerEvent);
        } catch (SnapshotException e) {
            throw new TargetException(e.getMessage());
        }
    }

    @Override
    public final void resume() {
        handle.resumed();
    }

    @Override
    public final void postsuspend() {
        handle.postsuspend();
    }

    @Override
    public final void close() {
        handle.close();
    }

    /** The snapshot's state and space (and merge progress), for the API. */
    public final SnapshotStatus snapshotStatus() {
        return snapshot.status();
    }

    public final Snapshot snapshot() {
        return snapshot;
    }
}
