package io.blockwork.engine.block;

/** What a {@link Bio} asks of a device. */
public enum BioOp {
    READ,
    WRITE,
    /** An empty cache flush: when it completes, every write that completed before it was submitted is durable. */
    FLUSH,
    /** The range's contents may be dropped; reads return zeros afterwards on every device Blockwork has. */
    DISCARD,
    WRITE_ZEROES;

    /** True for operations that carry a data buffer. */
    public boolean hasData() {
        return this == READ || this == WRITE;
    }

    /** True for operations that address a byte range. */
    public boolean hasRange() {
        return this != FLUSH;
    }

    /** True for operations that change the device's contents. */
    public boolean isWrite() {
        return this == WRITE || this == DISCARD || this == WRITE_ZEROES;
    }
}
