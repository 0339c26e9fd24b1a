package io.blockwork.nbd;

import java.time.Instant;

/**
 * What the server says about itself, for health checks and operators.
 *
 * @param running started and not stopped
 * @param accepting the accept loop is alive (it restarts itself after a failure)
 * @param connections clients connected now, negotiating or transmitting
 * @param maxConnections the limit beyond which new clients are refused
 * @param refusedConnections clients refused so far because {@code maxConnections} were connected
 * @param stalledClientsDropped clients dropped so far because they read none of their replies for the reply timeout
 * @param bytesInFlight request memory held now by every connection together
 * @param sharedBytesInUse the part of it borrowed from the shared pool
 * @param pooledBytes idle buffers kept for reuse
 * @param memoryBound the most request memory the limits allow ({@link NbdLimits#memoryBound()})
 * @param acceptLoopRestarts how often the accept loop failed and was restarted
 * @param failures unexpected errors in server threads so far (bugs, out of memory); any means unhealthy
 * @param lastFailure the latest of them, or null
 * @param tls TLS is configured
 */
public record NbdServerStatus(boolean running, boolean accepting, int connections, int maxConnections,
                              long refusedConnections, long stalledClientsDropped, long bytesInFlight,
                              long sharedBytesInUse, long pooledBytes, long memoryBound, long acceptLoopRestarts,
                              long failures, Failure lastFailure, boolean tls) {

    /**
     * An unexpected error in a server thread.
     *
     * @param at when it happened
     * @param where which thread or connection ("nbd-accept", "nbd#12[/127.0.0.1:4711 vol0] reader")
     * @param error the exception's class and message
     */
    public record Failure(Instant at, String where, String error) {}

    /**
     * This server's status together with that of a server made beside it (the Unix-domain socket's,
     * which shares the limits and the memory budget): connections and counts add up, both must be
     * running and accepting, and the later failure is the last one.
     */
    public NbdServerStatus with(NbdServerStatus beside) {
        Failure last = lastFailure == null ? beside.lastFailure
                : beside.lastFailure == null || lastFailure.at().isAfter(beside.lastFailure.at()) ? lastFailure
                : beside.lastFailure;
        return new NbdServerStatus(running && beside.running, accepting && beside.accepting,
                connections + beside.connections, maxConnections, refusedConnections + beside.refusedConnections,
                stalledClientsDropped + beside.stalledClientsDropped, bytesInFlight + beside.bytesInFlight,
                sharedBytesInUse, pooledBytes + beside.pooledBytes, memoryBound,
                acceptLoopRestarts + beside.acceptLoopRestarts, failures + beside.failures, last, tls);
    }

    /** Healthy: running, accepting, and no unexpected error so far. */
    public boolean healthy() {
        return running && accepting && failures == 0;
    }
}
