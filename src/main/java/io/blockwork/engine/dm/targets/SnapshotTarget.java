package io.blockwork.engine.dm.targets;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetType;
import io.blockwork.engine.dm.snapshot.Route;
import io.blockwork.engine.dm.snapshot.SnapshotHandle;

/**
 * dm-snapshot: the origin device as it was when the snapshot became active, writable on its own.
 *
 * <pre>
 * snapshot &lt;origin&gt; &lt;COW device&gt; &lt;P|PO|N&gt; &lt;chunk size&gt;
 *   &lt;origin&gt;      the device under the origin's snapshot-origin target
 *   &lt;COW device&gt;  where old chunks (and the snapshot's own writes) go
 *   P / PO / N    persistent exception store (the kernel's on-disk layout, survives restarts),
 *                 persistent with overflow (a full COW fails snapshot writes but keeps the
 *                 snapshot readable), transient (in memory)
 *   &lt;chunk size&gt;  copy-on-write unit in sectors, a power of two; 0 with P/PO takes the
 *                 COW header's (or 32 for a new store)
 * </pre>
 *
 * Status INFO: {@code Invalid}, {@code Overflow}, or {@code <allocated>/<total> <metadata>}
 * in sectors ({@link SnapshotStatus}). TABLE: {@code <origin> <cow> <P|PO|N> <chunk>}. Bios are
 * split at chunks; flushes go to the COW device. Discards and write-zeroes count as writes: they
 * make an exception and reach the COW, so the range reads back as zeros.
 *
 * <p>The snapshot itself lives in the engine's origin registry (see
 * {@link io.blockwork.engine.dm.snapshot.Origins}); reloading this table, or loading
 * {@code snapshot-merge} with the same COW device into another device, hands it over at resume
 * without reading the COW again. The locking strategy ({@code fine} or {@code global}) is the one
 * of the {@code DmConfig} the device was created or loaded with.
 */
public final class SnapshotTarget extends CowTarget {

    public static final TargetType TYPE = new TargetType("snapshot", version(1, 16, 0),
            "<origin> <COW device> <P|PO|N> <chunk size>", 4, 4, (ti, args) -> new SnapshotTarget(ti, open(ti, args, false)));

    SnapshotTarget(TargetContext ti, SnapshotHandle handle) {
        super(ti, handle);
    }

    @Override
    public MapResult map(Bio bio) {
        if (!handle.owns()) {
            return MapResult.IO_ERROR; // handed over to another table
        }
        Route r = bio.op().isWrite() ? snapshot.write(bio) : snapshot.read(bio);
        return mapResult(r, snapshot.origin(), snapshot.cow());
    }

    @Override
    public void allocation(long offset, long length, Extents out) {
        if (handle.owns()) {
            snapshot.allocation(offset, length, out);
        } else {
            out.add(length, Allocation.DATA);
        }
    }

    @Override
    public MapResult mapFlush(Bio flush, int index) {
        return MapResult.remap(snapshot.cow(), 0);
    }
}
