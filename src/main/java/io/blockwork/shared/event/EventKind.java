package io.blockwork.shared.event;

import io.blockwork.engine.block.Labelled;

/** What kind of object an event is about. */
public enum EventKind implements Labelled {
    DISK,
    ARRAY,
    /** An array member: {@code object} is the device, {@code parent} the array. */
    MEMBER,
    DM,
    POOL,
    /** {@code parent} is the pool, when known. */
    VOLUME,
    /** {@code parent} is the volume, when known. */
    SNAPSHOT,
    EXPORT,
    WORKLOAD,
    EXPERIMENT;
}
