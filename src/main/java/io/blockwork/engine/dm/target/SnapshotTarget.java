package io.blockwork.engine.dm.target;

import static io.blockwork.engine.dm.TargetType.version;

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
import io.blockwork.engine.dm.TargetType;
import io.blockwork.engine.dm.snapshot.Route;
import io.blockwork.engine.dm.snapshot.Snapshot;
import io.blockwork.engine.dm.snapshot.SnapshotException;
import io.blockwork.engine.dm.snapshot.SnapshotHandle;
import io.blockwork.engine.dm.snapshot.SnapshotSpec;
import io.blockwork.engine.dm.snapshot.SnapshotStatus;
import io.blockwork.engine.dm.snapshot.StoreType;
import java.util.List;

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
public final class SnapshotTarget implements Target {

    public static final TargetType TYPE = new TargetType("snapshot", version(1, 16, 0),
            "<origin> <COW device> <P|PO|N> <chunk size>", 4, 4, (ti, args) -> new SnapshotTarget(ti, open(ti, args, false)));

    static final ArgBound CHUNK = new ArgBound(0, ArgBound.UINT_MAX, "Invalid chunk size");

    private final TargetContext ti;
    private final SnapshotHandle handle;
    private final Snapshot snapshot;

    SnapshotTarget(TargetContext ti, SnapshotHandle handle) {
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
    public MapResult map(Bio bio) {
        if (!handle.owns()) {
            return MapResult.IO_ERROR; // handed over to another table
        }
        Route r = bio.op().isWrite() ? snapshot.write(bio) : snapshot.read(bio);
        return mapResult(r, snapshot.origin(), snapshot.cow());
    }

    @Override
    public MapResult mapFlush(Bio flush, int index) {
        return MapResult.remap(snapshot.cow(), 0);
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
            case TABLE -> tableArgs(handle);
        };
    }

    static String tableArgs(SnapshotHandle h) {
        return h.snapshot().origin().name() + " " + h.snapshot().cow().name() + " " + h.spec().store().code() + " "
                + h.snapshot().chunkSectors();
    }

    @Override
    public List<DeviceRange> devices() {
        return devices(ti, snapshot);
    }

    static List<DeviceRange> devices(TargetContext ti, Snapshot s) {
        return List.of(new DeviceRange(s.origin(), 0, ti.lengthSectors()),
                new DeviceRange(s.cow(), 0, s.cow().sizeBytes() >> 9));
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
    public void postsuspend() {
        handle.postsuspend();
    }

    @Override
    public void close() {
        handle.close();
    }

    /** The snapshot's state and space, for the API. */
    public SnapshotStatus snapshotStatus() {
        return snapshot.status();
    }

    public Snapshot snapshot() {
        return snapshot;
    }
}
