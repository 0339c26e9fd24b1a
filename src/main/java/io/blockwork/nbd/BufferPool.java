package io.blockwork.nbd;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Direct buffers for one connection's request payloads, in power-of-two size classes from 4 KiB.
 * A READ's bio fills the buffer and the reply is written from it; a WRITE's payload is read from
 * the socket into it and the bio takes it from there: the bytes are never copied in between.
 *
 * <p>Allocating a direct buffer is costly (it is zeroed and registered with a cleaner), so
 * released buffers are kept for reuse, up to {@code maxIdleBytes}; the rest are left to the GC.
 * The reader takes buffers and the reply writer gives them back, so the free lists are
 * concurrent queues.
 */
final class BufferPool {

    static final int MIN_CLASS_SHIFT = 12;

    private final ConcurrentLinkedQueue<ByteBuffer>[] free;
    private final AtomicLong idleBytes = new AtomicLong();
    private final long maxIdleBytes;

    @SuppressWarnings("unchecked")
    BufferPool(int maxBufferBytes, long maxIdleBytes) {
        int classes = classOf(maxBufferBytes) + 1;
        free = new ConcurrentLinkedQueue[classes];
        for (int i = 0; i < classes; i++) {
            free[i] = new ConcurrentLinkedQueue<>();
        }
        this.maxIdleBytes = maxIdleBytes;
    }

    /** The capacity a buffer for {@code length} bytes has: what a request is charged. */
    static int capacityFor(int length) {
        return 1 << (classOf(length) + MIN_CLASS_SHIFT);
    }

    private static int classOf(int length) {
        int shift = 32 - Integer.numberOfLeadingZeros(Math.max(length, 1) - 1);
        return Math.max(0, shift - MIN_CLASS_SHIFT);
    }

    /** A buffer with position 0 and limit {@code length}. */
    ByteBuffer take(int length) {
        int c = classOf(length);
        ByteBuffer b = free[c].poll();
        if (b == null) {
            b = ByteBuffer.allocateDirect(1 << (c + MIN_CLASS_SHIFT));
        } else {
            idleBytes.addAndGet(-b.capacity());
        }
        return b.clear().limit(length);
    }

    void give(ByteBuffer b) {
        if (idleBytes.addAndGet(b.capacity()) <= maxIdleBytes) {
            free[classOf(b.capacity())].offer(b);
        } else {
            idleBytes.addAndGet(-b.capacity());
        }
    }

    long idleBytes() {
        return idleBytes.get();
    }
}
