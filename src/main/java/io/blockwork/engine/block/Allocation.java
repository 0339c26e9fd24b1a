package io.blockwork.engine.block;

/**
 * What a range of a device holds, as {@link BlockDevice#allocation} reports it (NBD's
 * {@code base:allocation} context, the kernel's SEEK_DATA/SEEK_HOLE).
 */
public enum Allocation {
    /** Written data, or a range the device cannot vouch for: read it. */
    DATA,
    /** Nothing stored: reads return zeros, and no storage is used. */
    HOLE;

    /** The state of a range whose bytes may come from either source: a hole only if both are. */
    public Allocation or(Allocation other) {
        return this == HOLE ? other : DATA;
    }
}
