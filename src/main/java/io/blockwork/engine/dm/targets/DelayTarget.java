package io.blockwork.engine.dm.targets;

import static io.blockwork.engine.dm.TargetType.version;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeadlineScheduler;
import io.blockwork.engine.dm.ArgBound;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetArgs;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetException;
import io.blockwork.engine.dm.TargetType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * dm-delay: holds reads, writes and flushes back for a fixed time each, and can send each kind
 * to a different device.
 *
 * <pre>
 * delay &lt;dev&gt; &lt;offset&gt; &lt;delay&gt; [&lt;write dev&gt; &lt;write offset&gt; &lt;write delay&gt;
 *       [&lt;flush dev&gt; &lt;flush offset&gt; &lt;flush delay&gt;]]
 *   3 arguments: reads, writes and flushes all use the one device and delay
 *   6 arguments: the first set is for reads, the second for writes and flushes
 *   9 arguments: reads, writes, flushes
 *   &lt;delay&gt;  milliseconds; 0 passes that kind straight through
 * </pre>
 *
 * Writes include discards and write-zeroes; flushes are the empty flushes the core sends.
 * Status: INFO {@code <reads> <writes> <flushes>}, the bios of each kind waiting now; TABLE the
 * classes given (3, 6 or 9 arguments), each {@code <dev> <offset> <delay>}.
 *
 * <p>A waiting bio costs one entry on the engine's timer, not a thread. Presuspend sends every
 * waiting bio on at once and maps later ones without delay until resume, so suspend never waits
 * out a delay (the kernel's {@code may_delay}).
 */
public final class DelayTarget implements Target {

    public static final TargetType TYPE = new TargetType("delay", version(1, 4, 0),
            "<dev> <offset> <delay> [<write dev> <write offset> <write delay> [<flush dev> <flush offset> <flush delay>]]",
            3, 9, DelayTarget::construct);

    /** Where one kind of I/O goes and how long it waits (the kernel's {@code delay_class}). */
    record DelayClass(BlockDevice dev, long start, long delayMs) {
        String text() {
            return dev.name() + " " + start + " " + delayMs;
        }
    }

    /** A bio waiting out its delay. */
    private record Delayed(Bio bio, int kind) {}

    private static final int READ = 0;
    private static final int WRITE = 1;
    private static final int FLUSH = 2;

    private final DelayClass[] classes;
    private final int argc;
    private final long length;
    private final DeadlineScheduler timer;

    /** Leaf lock: guards {@link #waiting} and {@link #mayDelay}; bios are submitted outside it. */
    private final Object lock = new Object();
    /** Guarded by {@link #lock}: per kind, the bios waiting, oldest first. */
    @SuppressWarnings("unchecked")
    private final ArrayDeque<Delayed>[] waiting = new ArrayDeque[] {new ArrayDeque<>(), new ArrayDeque<>(), new ArrayDeque<>()};
    /** False from presuspend to resume. */
    @GuardedBy("lock")
    private boolean mayDelay = true;

    private DelayTarget(DelayClass[] classes, int argc, long length, DeadlineScheduler timer) {
        this.classes = classes;
        this.argc = argc;
        this.length = length;
        this.timer = timer;
    }

    static Target construct(TargetContext ti, TargetArgs args) throws TargetException {
        int argc = args.count();
        if (argc != 3 && argc != 6 && argc != 9) {
            throw new TargetException("Requires exactly 3, 6 or 9 arguments");
        }
        DelayClass read = delayClass(args, "");
        DelayClass write = argc >= 6 ? delayClass(args, "write ") : read;
        DelayClass flush = argc == 9 ? delayClass(args, "flush ") : write;
        return new DelayTarget(new DelayClass[] {read, write, flush}, argc, ti.lengthSectors(), ti.timer());
    }

    /** One {@code <dev> <offset> <delay>} set; {@code kind} is "", "write " or "flush " for the error texts. */
    private static DelayClass delayClass(TargetArgs args, String kind) throws TargetException {
        String lookupError = kind.isEmpty() ? "Device lookup failed"
                : Character.toUpperCase(kind.charAt(0)) + kind.substring(1) + "device lookup failed";
        BlockDevice dev = args.readDevice(lookupError);
        long start = args.readSector("Invalid " + kind + "device sector");
        long delay = args.readUnsigned(new ArgBound(0, ArgBound.UINT_MAX, "Invalid " + kind + "delay"));
        return new DelayClass(dev, start, delay);
    }

    @Override
    public MapResult map(Bio bio) {
        int kind = bio.op() == BioOp.READ ? READ : bio.op() == BioOp.FLUSH ? FLUSH : WRITE;
        DelayClass c = classes[kind];
        if (c.delayMs > 0) {
            Delayed d = new Delayed(bio, kind);
            boolean queued;
            synchronized (lock) {
                queued = mayDelay && waiting[kind].add(d);
            }
            if (queued) {
                // Armed outside the lock; if presuspend sends the bio first, expire() finds it gone.
                timer.schedule(TimeUnit.MILLISECONDS.toNanos(c.delayMs), () -> expire(d));
                return MapResult.SUBMITTED;
            }
        }
        return MapResult.remap(c.dev, target(c, bio));
    }

    private static long target(DelayClass c, Bio bio) {
        return bio.op() == BioOp.FLUSH ? 0 : (c.start << 9) + bio.offset();
    }

    /** The timer fired: send the bio on, unless presuspend already did. */
    private void expire(Delayed d) {
        synchronized (lock) {
            if (!waiting[d.kind].remove(d)) {
                return;
            }
        }
        send(d);
    }

    private void send(Delayed d) {
        DelayClass c = classes[d.kind];
        c.dev.submit(d.bio.remap(target(c, d.bio)));
        d.bio.endio();
    }

    /** Sends every waiting bio on now and stops delaying until resume. */
    @Override
    public void presuspend(boolean noflush) {
        List<Delayed> due = new ArrayList<>();
        synchronized (lock) {
            mayDelay = false;
            for (ArrayDeque<Delayed> q : waiting) {
                due.addAll(q);
                q.clear();
            }
        }
        due.forEach(this::send);
    }

    @Override
    public void presuspendUndo() {
        resume();
    }

    @Override
    public void resume() {
        synchronized (lock) {
            mayDelay = true;
        }
    }

    @Override
    public String status(StatusType type) {
        return switch (type) {
            case INFO -> {
                synchronized (lock) {
                    yield waiting[READ].size() + " " + waiting[WRITE].size() + " " + waiting[FLUSH].size();
                }
            }
            case TABLE -> switch (argc) {
                case 3 -> classes[READ].text();
                case 6 -> classes[READ].text() + " " + classes[WRITE].text();
                default -> classes[READ].text() + " " + classes[WRITE].text() + " " + classes[FLUSH].text();
            };
        };
    }

    @Override
    public List<DeviceRange> devices() {
        List<DeviceRange> out = new ArrayList<>(3);
        for (DelayClass c : classes) {
            out.add(new DeviceRange(c.dev, c.start, length));
        }
        return out;
    }
}
