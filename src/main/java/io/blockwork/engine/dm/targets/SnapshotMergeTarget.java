package io.blockwork.engine.dm.targets;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetType;
import io.blockwork.engine.dm.snapshot.SnapshotHandle;

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
public final class SnapshotMergeTarget extends CowTarget {

    public static final TargetType TYPE = new TargetType("snapshot-merge", version(1, 5, 0),
            "<origin> <COW device> <P|PO> <chunk size>", 4, 4,
            (ti, args) -> new SnapshotMergeTarget(ti, open(ti, args, true)));

    private SnapshotMergeTarget(TargetContext ti, SnapshotHandle handle) {
        super(ti, handle);
    }

    @Override
    public MapResult map(Bio bio) {
        if (!handle.owns()) {
            return MapResult.IO_ERROR;
        }
        return mapResult(snapshot.mapMerged(bio), snapshot.origin(), snapshot.cow());
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
    public void presuspend(boolean noflush) {
        handle.presuspend();
    }

    @Override
    public void presuspendUndo() {
        handle.presuspendUndo();
    }
}
