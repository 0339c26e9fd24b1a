package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * Copies one data block to another on the same device, for breaking sharing: read a piece, write
 * it, next piece, with one buffer of at most {@value #PIECE} bytes. No thread of its own: a
 * 64 KiB block is one read and one write on the completion path; bigger blocks continue each
 * piece from a virtual thread, so inline completions cannot pile up on the stack.
 */
final class BlockCopy {

    static final int PIECE = 1 << 20;
    private static final Executor NEXT = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("thin-copy-", 0).factory());

    private final BlockDevice device;
    private final long from;
    private final long to;
    private final long length;
    private final MemorySegment buffer;
    private final Consumer<IoStatus> done;
    private long offset;

    private BlockCopy(BlockDevice device, long from, long to, long length, Consumer<IoStatus> done) {
        this.device = device;
        this.from = from;
        this.to = to;
        this.length = length;
        this.buffer = MemorySegment.ofArray(new byte[(int) Math.min(length, PIECE)]);
        this.done = done;
    }

    /** Copies {@code length} bytes at {@code from} to {@code to}; {@code done} gets the first error or OK. */
    static void copy(BlockDevice device, long from, long to, long length, Consumer<IoStatus> done) {
        new BlockCopy(device, from, to, length, done).piece();
    }

    private void piece() {
        long n = Math.min(buffer.byteSize(), length - offset);
        MemorySegment buf = buffer.asSlice(0, n);
        long at = offset;
        device.submit(Bio.read(from + at, buf, r -> {
            if (!r.status().ok()) {
                done.accept(r.status());
                return;
            }
            device.submit(Bio.write(to + at, buf, BioFlags.NONE, w -> {
                if (!w.status().ok()) {
                    done.accept(w.status());
                } else if ((offset = at + n) >= length) {
                    done.accept(IoStatus.OK);
                } else {
                    NEXT.execute(this::piece);
                }
            }));
        }));
    }
}
