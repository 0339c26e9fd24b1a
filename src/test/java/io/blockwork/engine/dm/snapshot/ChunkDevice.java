package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoCounters;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A tiny device for model checking: one int per 512-byte sector (the first four bytes of a bio's
 * data), reads and writes completed inline. Small enough that Lincheck explores the snapshot's
 * interleavings rather than a disk's.
 */
final class ChunkDevice implements BlockDevice {

    private final String name;
    final AtomicIntegerArray values;

    ChunkDevice(String name, int sectors) {
        this.name = name;
        this.values = new AtomicIntegerArray(sectors);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long sizeBytes() {
        return values.length() * 512L;
    }

    @Override
    public DeviceLimits limits() {
        return DeviceLimits.of(512);
    }

    @Override
    public void submit(Bio bio) {
        int sector = (int) (bio.offset() >> 9);
        switch (bio.op()) {
            case READ -> bio.data().set(ValueLayout.JAVA_INT_UNALIGNED, 0, values.get(sector));
            case WRITE -> values.set(sector, bio.data().get(ValueLayout.JAVA_INT_UNALIGNED, 0));
            default -> { }
        }
        bio.endio();
    }

    @Override
    public IoCounters counters() {
        return IoCounters.ZERO;
    }
}
