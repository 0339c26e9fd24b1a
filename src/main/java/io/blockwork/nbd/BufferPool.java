package io.blockwork.nbd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Native buffers for one connection's request payloads, in power-of-two size classes from 4 KiB.
 * Each is one piece of off-heap memory seen two ways: as a {@link MemorySegment} for the bio and
 * as a direct {@link ByteBuffer} for the socket. A READ's bio fills it and the reply is written
 * from it; a WRITE's payload is read from the socket into it and the bio takes it from there: the
 * bytes are never copied in between.
 *
 * <p>Allocating native memory is costly (a system call and fresh pages), so released buffers are
 * kept for reuse, up to {@code maxIdleBytes}. Every buffer has an arena of its own, closed as soon
 * as the pool lets the buffer go, which unmaps its pages ({@link PageAllocator}): memory goes back
 * to the system when the pool is over its idle cap and when the connection ends ({@link #close}),
 * not whenever a garbage collection happens to run, so the process shrinks again after a crowd of
 * clients has left. The reader takes buffers and the reply
 * senders give them back, so the free lists are concurrent queues.
 *
 * <p>Spares. A connection's pool may have a server-wide pool of spares behind it (a pool like this
 * one, with no spares of its own): what the connection lets go (over its cap, or when it ends) goes
 * there, up to the spares' own cap, and a connection whose free list has no buffer of a class takes
 * one from there before it maps a new one. A client that opens a new connection for every job
 * ({@code nbdcopy}, {@code qemu-img}) so gets buffers whose pages are already mapped and faulted in,
 * instead of a {@code mmap}, a page fault for every 4 KiB on first use and a {@code munmap} with a
 * shared arena's close per buffer.
 */
final class BufferPool {

    static final int MIN_CLASS_SHIFT = 12;

    /** One pooled buffer; {@link #length} is the part the current request uses. */
    static final class Payload {
        private final Arena arena;
        private final MemorySegment memory;
        private final ByteBuffer view;
        private int length;

        @SuppressWarnings("MustBeClosedChecker") // the arena is the buffer's life: free() closes it
        private Payload(long bytes) {
            this.arena = Arena.ofShared();
            this.memory = PageAllocator.allocate(bytes, arena);
            this.view = memory.asByteBuffer();
        }

        private void free() {
            arena.close();
        }

        int length() {
            return length;
        }

        /** The request's bytes for the bio. */
        MemorySegment segment() {
            return memory.asSlice(0, length);
        }

        /** The request's bytes for the socket, positioned at 0. */
        ByteBuffer buffer() {
            return view.clear().limit(length);
        }
    }

    private final ConcurrentLinkedQueue<Payload>[] free;
    private final AtomicLong idleBytes = new AtomicLong();
    private final long maxIdleBytes;
    /** Where buffers this pool lets go are offered before they are freed; null for none. */
    private final BufferPool spares;
    private volatile boolean closed;

    BufferPool(int maxBufferBytes, long maxIdleBytes) {
        this(maxBufferBytes, maxIdleBytes, null);
    }

    /** @param spares a pool without spares of its own for the same largest buffer, or null */
    @SuppressWarnings("unchecked")
    BufferPool(int maxBufferBytes, long maxIdleBytes, BufferPool spares) {
        int classes = classOf(maxBufferBytes) + 1;
        free = new ConcurrentLinkedQueue[classes];
        for (int i = 0; i < classes; i++) {
            free[i] = new ConcurrentLinkedQueue<>();
        }
        this.maxIdleBytes = maxIdleBytes;
        this.spares = spares;
    }

    /** The capacity a buffer for {@code length} bytes has: what a request is charged. */
    static int capacityFor(int length) {
        return 1 << (classOf(length) + MIN_CLASS_SHIFT);
    }

    private static int classOf(int length) {
        int shift = 32 - Integer.numberOfLeadingZeros(Math.max(length, 1) - 1);
        return Math.max(0, shift - MIN_CLASS_SHIFT);
    }

    /** A buffer for {@code length} bytes. */
    Payload take(int length) {
        int c = classOf(length);
        Payload p = takeIdle(c);
        if (p == null && spares != null) {
            p = spares.takeIdle(c);
        }
        if (p == null) {
            p = new Payload(1L << (c + MIN_CLASS_SHIFT));
        }
        p.length = length;
        return p;
    }

    /** An idle buffer of size class {@code c}, or null. */
    private Payload takeIdle(int c) {
        Payload p = free[c].poll();
        if (p != null) {
            idleBytes.addAndGet(-p.memory.byteSize());
        }
        return p;
    }

    /** Takes a buffer back: kept for reuse, or freed at once if the pool is full or closed. */
    void give(Payload p) {
        long size = p.memory.byteSize();
        if (!closed) {
            if (idleBytes.addAndGet(size) <= maxIdleBytes) {
                free[classOf((int) size)].offer(p);
                if (closed) {
                    freeIdle(); // close() ran meanwhile and may have missed this one
                }
                return;
            }
            idleBytes.addAndGet(-size);
        }
        letGo(p);
    }

    /** A buffer this pool does not keep: to the spares if there are any (they free what they do not keep). */
    private void letGo(Payload p) {
        if (spares != null) {
            spares.give(p);
        } else {
            p.free();
        }
    }

    /** Frees every idle buffer; buffers given back later are freed as they come. */
    void close() {
        closed = true;
        freeIdle();
    }

    /** Lets every idle buffer go (to the spares, if any); the pool stays usable. */
    void freeIdle() {
        for (ConcurrentLinkedQueue<Payload> q : free) {
            Payload p;
            while ((p = q.poll()) != null) {
                idleBytes.addAndGet(-p.memory.byteSize());
                letGo(p);
            }
        }
    }

    long idleBytes() {
        return idleBytes.get();
    }
}
