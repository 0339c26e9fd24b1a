package io.blockwork.engine.block;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * The one place where a thread blocks on block I/O: REST handlers, NBD connections and workload
 * threads submit through here. Before parking it dispatches the thread's {@link Plug}, as
 * io_schedule does, so a waiter never sits on its own plugged bios.
 */
public final class SyncIo {

    private SyncIo() {}

    /** Submits one bio and waits for it; returns its status. */
    public static IoStatus execute(BlockDevice device, BioOp op, long offset, long length,
                                   BioFlags flags, MemorySegment data) {
        Waiter w = new Waiter();
        device.submit(Bio.of(op, offset, length, flags, data, w));
        w.await();
        return w.status;
    }

    public static void read(BlockDevice device, long offset, MemorySegment into) {
        check(execute(device, BioOp.READ, offset, into.byteSize(), BioFlags.NONE, into), device, "read");
    }

    public static void write(BlockDevice device, long offset, MemorySegment from, BioFlags flags) {
        check(execute(device, BioOp.WRITE, offset, from.byteSize(), flags, from), device, "write");
    }

    public static void write(BlockDevice device, long offset, MemorySegment from) {
        write(device, offset, from, BioFlags.NONE);
    }

    public static void flush(BlockDevice device) {
        check(execute(device, BioOp.FLUSH, 0, 0, BioFlags.NONE, null), device, "flush");
    }

    public static void discard(BlockDevice device, long offset, long length) {
        check(execute(device, BioOp.DISCARD, offset, length, BioFlags.NONE, null), device, "discard");
    }

    public static void writeZeroes(BlockDevice device, long offset, long length) {
        check(execute(device, BioOp.WRITE_ZEROES, offset, length, BioFlags.NONE, null), device, "write-zeroes");
    }

    private static void check(IoStatus status, BlockDevice device, String what) {
        if (!status.ok()) {
            throw new BlockIoException(status, what + " on " + device.name());
        }
    }

    /**
     * Completion that wakes one waiting thread. The completer unparks only if the waiter has
     * announced it is parking, so an inline completion costs no wake-up.
     */
    public static final class Waiter implements BioCallback {
        private final Thread thread = Thread.currentThread();
        private volatile boolean done;
        private volatile boolean parking;
        private IoStatus status;

        @Override
        public void done(Bio bio) {
            status = bio.status();
            done = true;
            if (parking) {
                LockSupport.unpark(thread);
            }
        }

        public boolean isDone() {
            return done;
        }

        /** Blocks until the bio has completed; returns its status. */
        public IoStatus await() {
            if (!done) {
                Plug.flushCurrent();
                parking = true;
                while (!done) {
                    LockSupport.park(this);
                }
            }
            return status;
        }
    }
}
