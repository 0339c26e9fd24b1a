package io.blockwork.engine.dm;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * A test target shaped like multipath's {@code queue_if_no_path}: while {@code holding}, bios wait
 * inside it. Presuspend completes them; during a noflush suspend their end-io pushes them back to
 * the core (kept for resume), otherwise they fail. With {@code pushBackAtMap} set, map itself
 * answers REQUEUE.
 *
 * <pre>holding &lt;dev&gt;</pre>
 */
final class HoldingTarget implements Target {

    static final TargetType TYPE = new TargetType("holding", TargetType.version(1, 0, 0), "<dev>", 1, 1,
            (ti, args) -> new HoldingTarget(args.readDevice("Device lookup failed"), ti));

    private static final Object HELD = new Object();

    /** The last one constructed, for tests to steer. */
    static volatile HoldingTarget last;

    private final BlockDevice dev;
    private final TargetContext ti;
    volatile boolean holding = true;
    volatile boolean pushBackAtMap;
    private final List<Bio> held = new ArrayList<>();

    HoldingTarget(BlockDevice dev, TargetContext ti) {
        this.dev = dev;
        this.ti = ti;
        last = this;
    }

    @Override
    public MapResult map(Bio bio) {
        if (pushBackAtMap) {
            return MapResult.REQUEUE;
        }
        if (holding) {
            bio.context(HELD);
            synchronized (held) {
                held.add(bio);
            }
            return MapResult.SUBMITTED;
        }
        return MapResult.remap(dev, bio.offset());
    }

    int heldCount() {
        synchronized (held) {
            return held.size();
        }
    }

    @Override
    public void presuspend(boolean noflush) {
        List<Bio> out;
        synchronized (held) {
            out = new ArrayList<>(held);
            held.clear();
        }
        out.forEach(b -> b.endio(IoStatus.IO_ERROR));
    }

    @Override
    public EndIo endIo(Bio bio, IoStatus status) {
        if (bio.context() == HELD && ti.noflushSuspending()) {
            return EndIo.REQUEUE;
        }
        return EndIo.done(status);
    }

    @Override
    public String status(StatusType type) {
        return type == StatusType.TABLE ? dev.name() : String.valueOf(heldCount());
    }

    @Override
    public List<DeviceRange> devices() {
        return List.of(new DeviceRange(dev, 0, ti.lengthSectors()));
    }
}
