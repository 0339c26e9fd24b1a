package io.blockwork.nbd;

import java.net.SocketAddress;
import java.time.Instant;

/**
 * A connected client, as {@link NbdServer#clients()} reports it.
 *
 * @param id the server's number for the connection, unique while the server runs
 * @param exportName the export it uses, or null while it is still negotiating
 * @param remoteAddress the client's address
 * @param connectedAt when the TCP connection was accepted
 * @param requestsServed requests answered so far
 * @param inFlightBytes memory currently charged to its requests (payload buffers plus overhead)
 * @param tls whether it talks to its export over TLS
 */
public record NbdClient(long id, String exportName, SocketAddress remoteAddress, Instant connectedAt,
                        long requestsServed, long inFlightBytes, boolean tls) {
}
