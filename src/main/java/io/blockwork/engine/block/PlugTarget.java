package io.blockwork.engine.block;

import java.util.List;

/** A request queue that a {@link Plug} can hold bios for and hand them back to, merged. */
public interface PlugTarget {

    /**
     * Starts a run of bios as one request: all the same op, contiguous and in offset order, none
     * carrying PREFLUSH or FUA. A run of one is an ordinary request.
     */
    void dispatchRun(List<Bio> run);
}
