package io.blockwork.shared.device;

import io.blockwork.engine.block.Labelled;

/** The kinds of block device that share one name space. Later features add a constant each. */
public enum DeviceKind implements Labelled {
    DISK,
    ARRAY,
    DM,
    VOLUME,
    SNAPSHOT,
    /** A volume's or snapshot's internal mapped device: {@code <volume>-real}, {@code <snapshot>-cow}. */
    HIDDEN;
}
