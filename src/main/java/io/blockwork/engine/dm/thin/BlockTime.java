package io.blockwork.engine.dm.thin;

/**
 * A mapping's value: the data block and the pool time at which the mapping was made, packed as
 * dm-thin packs it ({@code block << 24 | time}). A mapping made before its device was last
 * snapshotted may be shared and is copied before it is written (the kernel's rule; see
 * {@link DeviceDetails#sharedSince}).
 *
 * @param block data block, below 2^40
 * @param time pool time, 24 bits (wraps like the kernel's)
 */
record BlockTime(long block, int time) {

    static final int TIME_BITS = 24;
    static final int TIME_MASK = (1 << TIME_BITS) - 1;
    static final long MAX_BLOCK = (1L << 40) - 1;

    BlockTime {
        if (block < 0 || block > MAX_BLOCK) {
            throw new IllegalArgumentException("data block out of range: " + block);
        }
    }

    static long pack(long block, int time) {
        return block << TIME_BITS | (time & TIME_MASK);
    }

    static long block(long packed) {
        return packed >>> TIME_BITS;
    }

    static int time(long packed) {
        return (int) (packed & TIME_MASK);
    }

    static BlockTime unpack(long packed) {
        return new BlockTime(block(packed), time(packed));
    }
}
