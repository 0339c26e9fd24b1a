package io.blockwork.engine.block;

/**
 * Called once when a {@link Bio} completes, on whatever thread completed it. It must not block:
 * hand slow work to another thread.
 */
@FunctionalInterface
public interface BioCallback {
    void done(Bio bio);
}
