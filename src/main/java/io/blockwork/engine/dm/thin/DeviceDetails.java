package io.blockwork.engine.dm.thin;

/**
 * What the pool records per thin device besides its mappings: how many blocks it maps (for its
 * status line and the pool's listings) and the pool time of the last snapshot it took part in,
 * packed into one details-tree value ({@code mapped << 24 | snapshotted}).
 *
 * @param mappedBlocks blocks the device maps
 * @param snapshottedTime pool time of the last snapshot of, or from, this device
 */
record DeviceDetails(long mappedBlocks, int snapshottedTime) {

    static DeviceDetails unpack(long packed) {
        return new DeviceDetails(packed >>> BlockTime.TIME_BITS, (int) (packed & BlockTime.TIME_MASK));
    }

    long pack() {
        return mappedBlocks << BlockTime.TIME_BITS | (snapshottedTime & BlockTime.TIME_MASK);
    }

    /**
     * True if a mapping made at {@code mappingTime} may be shared with another device: it is older
     * than the device's last snapshot. Conservative, like dm-thin's: a block stays "shared" for
     * this device until it is written once, even if the other sharer has gone meanwhile, which is
     * what keeps a crash before the next commit from exposing an in-place write to the committed
     * metadata's other sharer.
     */
    boolean sharedSince(int mappingTime) {
        return mappingTime < snapshottedTime;
    }

    DeviceDetails withMapped(long delta) {
        return new DeviceDetails(mappedBlocks + delta, snapshottedTime);
    }

    DeviceDetails snapshottedAt(int time) {
        return new DeviceDetails(mappedBlocks, time);
    }
}
