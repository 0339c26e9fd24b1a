package io.blockwork.engine.block;

import java.util.concurrent.atomic.LongAdder;

/** Counters a device bumps as requests arrive and fail; striped, so many submitters do not contend. */
public final class IoStats {
    private final LongAdder reads = new LongAdder();
    private final LongAdder writes = new LongAdder();
    private final LongAdder flushes = new LongAdder();
    private final LongAdder discards = new LongAdder();
    private final LongAdder readBytes = new LongAdder();
    private final LongAdder writtenBytes = new LongAdder();
    private final LongAdder errors = new LongAdder();

    /** Counts a request as it is submitted. */
    public void submitted(Bio bio) {
        switch (bio.op()) {
            case READ -> {
                reads.increment();
                readBytes.add(bio.length());
            }
            case WRITE, WRITE_ZEROES -> {
                writes.increment();
                writtenBytes.add(bio.length());
                if (bio.preflush()) {
                    flushes.increment();
                }
            }
            case FLUSH -> flushes.increment();
            case DISCARD -> discards.increment();
        }
    }

    public void failed() {
        errors.increment();
    }

    public IoCounters snapshot() {
        return new IoCounters(reads.sum(), writes.sum(), flushes.sum(), discards.sum(),
                readBytes.sum(), writtenBytes.sum(), errors.sum());
    }
}
