package io.blockwork.shared.event;

import io.blockwork.engine.block.Labelled;

/** What happened, as the {@code type} of an event and the SSE {@code event:} field. */
public enum EventType implements Labelled {
    /** An object was configured (its row committed). */
    CREATED,
    /** An object's configuration changed; {@code data.fields} names what. */
    CHANGED,
    /** An object was removed. */
    DELETED,
    /** An object's health changed: {@code state} and {@code reason} say to what and why. */
    STATE,
    /** An array member failed; {@code reason} says why. */
    FAILED,
    /** Something long-running moved on: sync, recovery, check, merge, workload, experiment. */
    PROGRESS,
    /** A snapshot's COW space crossed 50, 80, 95 or 100 %. */
    FILL,
    /** Something long-running stopped: {@code data.completed} says whether it finished. */
    ENDED,
    /** An NBD client connected to an export. */
    CONNECTED,
    /** An NBD client went away. */
    DISCONNECTED;
}
