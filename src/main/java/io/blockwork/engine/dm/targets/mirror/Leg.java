package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.block.BlockDevice;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One leg of a mirror (the kernel's {@code struct mirror}): a device area and the errors seen on
 * it. The error state is two atomics, read lock-free by the I/O path.
 */
final class Leg {

    /** The kinds of error a leg records, in the order the health letter reports them (most severe first). */
    enum Failure {
        /** An empty flush failed. */
        FLUSH('F'),
        /** A write failed: the leg misses data ("Dead"). */
        WRITE('D'),
        /** A recovery copy failed onto (or, for the source, from) this leg. */
        SYNC('S'),
        /** A read failed; the leg's data is not known to be wrong. */
        READ('R');

        final char letter;

        Failure(char letter) {
            this.letter = letter;
        }

        int bit() {
            return 1 << ordinal();
        }

        /** Failures after which the leg may miss writes: with {@code handle_errors} it takes no more. */
        static final int LOSES_WRITES = FLUSH.bit() | WRITE.bit() | SYNC.bit();
    }

    final int index;
    final BlockDevice dev;
    final long offsetSectors;
    final long offsetBytes;
    private final AtomicInteger errorCount = new AtomicInteger();
    private final AtomicInteger failures = new AtomicInteger();

    Leg(int index, BlockDevice dev, long offsetSectors) {
        this.index = index;
        this.dev = dev;
        this.offsetSectors = offsetSectors;
        this.offsetBytes = offsetSectors << 9;
    }

    /** Records an error; true if this kind of failure is new for the leg (the kernel's fail_mirror). */
    boolean fail(Failure f) {
        errorCount.incrementAndGet();
        return (failures.getAndUpdate(v -> v | f.bit()) & f.bit()) == 0;
    }

    /** No error of any kind so far: reads may come here (the kernel's choose_mirror). */
    boolean healthy() {
        return errorCount.get() == 0;
    }

    /** True once a failure left the leg possibly missing writes. */
    boolean lostWrites() {
        return (failures.get() & Failure.LOSES_WRITES) != 0;
    }

    /** The status letter: A (alive), else the most severe failure seen, as device_status_char. */
    char health() {
        if (errorCount.get() == 0) {
            return 'A';
        }
        int f = failures.get();
        for (Failure k : Failure.values()) {
            if ((f & k.bit()) != 0) {
                return k.letter;
            }
        }
        return 'U';
    }

    @Override
    public String toString() {
        return dev.name() + "@" + offsetSectors + "(" + health() + ")";
    }
}
