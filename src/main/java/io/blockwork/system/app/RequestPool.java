package io.blockwork.system.app;

/**
 * The threads that serve HTTP requests, as the web server reports them; the web layer provides
 * it once the server has started (until then the watch has no pool to look at).
 */
public interface RequestPool {

    /** Threads running a request now. */
    int busy();

    /** The most threads the pool will start. */
    int max();

    /** Requests accepted and waiting for a thread. */
    int queued();
}
