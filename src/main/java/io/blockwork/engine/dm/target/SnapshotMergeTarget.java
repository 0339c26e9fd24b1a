package io.blockwork.engine.dm.target;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.EndIo;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetException;
import io.blockwork.engine.dm.TargetType;
import io.blockwork.engine.dm.snapshot.Snapshot;
import io.blockwork.engine.dm.snapshot.SnapshotException;
import io.blockwork.engine.dm.snapshot.SnapshotHandle;
import io.blockwork.engine.dm.snapshot.SnapshotStatus;
import java.util.List;

/**
 * dm-snapshot's merge (rollback): loaded in place of the origin's {@code snapshot-origin}, it
 * presents the snapshot's content (the origin with the snapshot's exceptions laid over it) while
 * it copies the exceptions back onto the origin; when it is done the snapshot is empty and the
 * origin is the snapshot. The merged view stays readable and writable throughout.
 *
 * <pre>
 * snapshot-merge &lt;origin&gt; &lt;COW device&gt; &lt;P|PO&gt; &lt;chunk size&gt;
 * </pre>
 *
 * Arguments as for {@code snapshot}; persistent stores only. Usually it takes over a live
 * snapshot: suspend the snapshot's device and the origin's, load this into the origin's device,
 * resume it (the handover happens then), and remove the snapshot's device. Merging runs while the
 * device is resumed and stops for a suspend.
 *
 * <p>Status INFO as for {@code snapshot}, plus {@code Merge failed}; the merge is done when
 * allocated equals metadata ({@code 2/…  2} for a one-chunk header and area), the kernel's
 * signal. TABLE: {@code <origin> <cow> <P|PO> <chunk>}. Two flush bios: the origin and the COW.
 */
public final class SnapshotMergeTarget implements Target {

    public static final TargetType TYPE = new TargetType("snapshot-merge", version(1, 5, 0),
            "<origin> <COW device> <P|PO> <chunk size>", 4, 4,
            (ti, args) -> new SnapshotMergeTarget(ti, SnapshotTarget.open(ti, args, true)));

    private final TargetContext ti;
    private final SnapshotHandle handle;
    private final Snapshot snapshot;

    private SnapshotMergeTarget(TargetContext ti, SnapshotHandle handle) {
        this.ti = ti;
        this.handle = handle;
        this.snapshot = handle.snapshot();
    }

    @Override
    public MapResult map(Bio bio) {
        if (!handle.owns()) {
            return MapResult.IO_ERROR;
        }
        return SnapshotTarget.mapResult(snapshot.mapMerged(bio), snapshot.origin(), snapshot.cow());
    }

    @Override
    public int numFlushBios() {
        return 2;
    }

    @Override
    public MapResult mapFlush(Bio flush, int index) {
        return MapResult.remap(index == 0 ? snapshot.origin() : snapshot.cow(), 0);
    }

    @Override
    public EndIo endIo(Bio bio, IoStatus status) {
        snapshot.endIo(bio);
        return EndIo.done(status);
    }

    @Override
    public long maxIoSectors() {
        return snapshot.chunkSectors();
    }

    @Override
    public String status(StatusType type) {
        return switch (type) {
            case INFO -> snapshot.status().text();
            case TABLE -> SnapshotTarget.tableArgs(handle);
        };
    }

    @Override
    public List<DeviceRange> devices() {
        return SnapshotTarget.devices(ti, snapshot);
    }

    @Override
    public void preresume() throws TargetException {
        try {
            handle.claim(ti::triggerEvent);
        } catch (SnapshotException e) {
            throw new TargetException(e.getMessage());
        }
    }

    @Override
    public void resume() {
        handle.resumed();
    }

    @Override
    public void presuspend(boolean noflush) {
        handle.presuspend();
    }

    @Override
    public void presuspendUndo() {
        handle.presuspendUndo();
    }

    @Override
    public void postsuspend() {
        handle.postsuspend();
    }

    @Override
    public void close() {
        handle.close();
    }

    /** The snapshot's state, space and merge progress, for the API. */
    public SnapshotStatus snapshotStatus() {
        return snapshot.status();
    }

    public Snapshot snapshot() {
        return snapshot;
    }
}
