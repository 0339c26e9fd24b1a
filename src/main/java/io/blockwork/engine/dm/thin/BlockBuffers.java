package io.blockwork.engine.dm.thin;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Block-sized buffers for breaking sharing, reused instead of allocated per copy (a 64 KiB array
 * per first write is garbage the collector would chase at every write rate). Keeps at most
 * {@value #KEEP} spare; more are made when needed and dropped when given back.
 */
final class BlockBuffers {

    static final int KEEP = 64;

    private final int size;
    private final ConcurrentLinkedQueue<MemorySegment> spare = new ConcurrentLinkedQueue<>();
    private final AtomicInteger spares = new AtomicInteger();

    BlockBuffers(int size) {
        this.size = size;
    }

    MemorySegment take() {
        MemorySegment m = spare.poll();
        if (m == null) {
            return MemorySegment.ofArray(new byte[size]);
        }
        spares.decrementAndGet();
        return m;
    }

    void give(MemorySegment m) {
        if (spares.incrementAndGet() <= KEEP) {
            spare.add(m);
        } else {
            spares.decrementAndGet();
        }
    }
}
