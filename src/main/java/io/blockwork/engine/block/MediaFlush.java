package io.blockwork.engine.block;

import java.util.function.Consumer;

/** Starts one flush of a device's volatile cache and reports its outcome once, possibly inline. */
@FunctionalInterface
public interface MediaFlush {
    void start(Consumer<IoStatus> done);
}
