package io.blockwork.engine.dm.targets;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.dm.ArgBound;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.EndIo;
import io.blockwork.engine.dm.EndIo;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetArgs;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetException;
import io.blockwork.engine.dm.TargetType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * dm-stripe: chunks of the target go round-robin over several device areas (RAID 0).
 *
 * <pre>
 * striped &lt;#stripes&gt; &lt;chunk size&gt; &lt;dev&gt; &lt;offset&gt; [&lt;dev&gt; &lt;offset&gt;]...
 *   &lt;#stripes&gt;    number of device areas, at least 1
 *   &lt;chunk size&gt;  sectors per chunk: any non-zero size that divides the stripe width
 *                 (target length / #stripes), as the kernel has allowed since 3.x, and a
 *                 multiple of the devices' logical block size
 *   &lt;dev&gt; &lt;offset&gt; each area: a device by name and its first sector; each area is
 *                 (target length / #stripes) sectors long
 * </pre>
 *
 * Status: INFO {@code <#stripes> <dev>... 1 <A|D>...}, one letter per stripe, D once an I/O
 * on that stripe's device failed (as {@code 2 d0 d1 1 AA}); TABLE
 * {@code <#stripes> <chunk> <dev> <offset>...}. Bios are split at chunk boundaries; an empty
 * flush goes once to each stripe (flushes may bypass the map, and then go once per distinct
 * device).
 */
public final class StripedTarget implements Target {

    public static final TargetType TYPE = new TargetType("striped", version(1, 6, 0),
            "<#stripes> <chunk size> <dev> <offset> [<dev> <offset>]...", 2, Integer.MAX_VALUE,
            StripedTarget::construct);

    /** Errors past this many on one stripe no longer raise events (DM_IO_ERROR_THRESHOLD). */
    static final int ERROR_THRESHOLD = 15;

    private static final ArgBound STRIPES = new ArgBound(1, ArgBound.UINT_MAX, "Invalid stripe count");
    private static final ArgBound CHUNK = new ArgBound(1, ArgBound.UINT_MAX, "Invalid chunk_size");

    /** One device area. */
    record Stripe(BlockDevice dev, long start) {}

    private final Stripe[] stripes;
    private final long chunkSectors;
    private final long chunkBytes;
    private final long widthSectors;
    private final AtomicIntegerArray errors;
    private final TargetContext ti;

    private StripedTarget(Stripe[] stripes, long chunkSectors, long widthSectors, TargetContext ti) {
        this.stripes = stripes;
        this.chunkSectors = chunkSectors;
        this.chunkBytes = chunkSectors << 9;
        this.widthSectors = widthSectors;
        this.errors = new AtomicIntegerArray(stripes.length);
        this.ti = ti;
    }

    static Target construct(TargetContext ti, TargetArgs args) throws TargetException {
        long n = args.readUnsigned(STRIPES);
        long chunk = args.readUnsigned(CHUNK);
        if (ti.lengthSectors() % n != 0) {
            throw new TargetException("Target length not divisible by number of stripes");
        }
        long width = ti.lengthSectors() / n;
        if (width % chunk != 0) {
            throw new TargetException("Target length not divisible by chunk size");
        }
        if (args.remaining() != 2 * n) {
            throw new TargetException("Not enough destinations specified: " + n + " stripes need "
                    + 2 * n + " device/offset arguments, " + args.remaining() + " given");
        }
        Stripe[] stripes = new Stripe[(int) n];
        for (int i = 0; i < n; i++) {
            String error = "Couldn't parse stripe destination " + i;
            BlockDevice dev = args.readDevice(error);
            stripes[i] = new Stripe(dev, args.readSector(error));
        }
        return new StripedTarget(stripes, chunk, width, ti);
    }

    @Override
    public MapResult map(Bio bio) {
        long chunk = bio.offset() / chunkBytes;
        long inChunk = bio.offset() % chunkBytes;
        int index = (int) (chunk % stripes.length);
        Stripe s = stripes[index];
        bio.context(index);
        return MapResult.remap(s.dev, (s.start << 9) + (chunk / stripes.length) * chunkBytes + inChunk);
    }

    /** Chunk by chunk, each asked of its stripe's device where {@link #map} would send it. */
    @Override
    public void allocation(long offset, long length, Extents out) {
        long end = offset + length;
        for (long pos = offset; pos < end && !out.stopped(); ) {
            long chunk = pos / chunkBytes;
            long inChunk = pos % chunkBytes;
            long n = Math.min(end - pos, chunkBytes - inChunk);
            Stripe s = stripes[(int) (chunk % stripes.length)];
            s.dev.allocation((s.start << 9) + (chunk / stripes.length) * chunkBytes + inChunk, n, out);
            pos += n;
        }
    }

    @Override
    public MapResult mapFlush(Bio flush, int index) {
        flush.context(index);
        return MapResult.remap(stripes[index].dev, 0);
    }

    /** Counts errors against every stripe on the failing device and raises an event for the first few. */
    @Override
    public EndIo endIo(Bio bio, IoStatus status) {
        if (status.ok() || status == IoStatus.NOT_SUPPORTED) {
            return EndIo.done(status);
        }
        BlockDevice failed = stripes[(Integer) bio.context()].dev;
        for (int i = 0; i < stripes.length; i++) {
            if (stripes[i].dev == failed && errors.incrementAndGet(i) < ERROR_THRESHOLD) {
                ti.triggerEvent();
            }
        }
        return EndIo.done(status);
    }

    @Override
    public int numFlushBios() {
        return stripes.length;
    }

    @Override
    public boolean flushBypassesMap() {
        return true;
    }

    @Override
    public long maxIoSectors() {
        return chunkSectors;
    }

    @Override
    public String status(StatusType type) {
        StringBuilder s = new StringBuilder().append(stripes.length);
        switch (type) {
            case INFO -> {
                for (Stripe st : stripes) {
                    s.append(' ').append(st.dev.name());
                }
                s.append(" 1 ");
                for (int i = 0; i < stripes.length; i++) {
                    s.append(errors.get(i) > 0 ? 'D' : 'A');
                }
            }
            case TABLE -> {
                s.append(' ').append(chunkSectors);
                for (Stripe st : stripes) {
                    s.append(' ').append(st.dev.name()).append(' ').append(st.start);
                }
            }
        }
        return s.toString();
    }

    @Override
    public List<DeviceRange> devices() {
        List<DeviceRange> out = new ArrayList<>(stripes.length);
        for (Stripe s : stripes) {
            out.add(new DeviceRange(s.dev, s.start, widthSectors));
        }
        return out;
    }
}
