package io.blockwork.export.app;

import io.blockwork.shared.assembly.ObjectState;
import java.time.Instant;
import java.util.List;

/**
 * An export as the API shows it: its configuration, its state, and what the NBD server reports.
 *
 * @param deviceKind "disk", "array", "dm", "volume"
 * @param sizeBytes what clients see as the export size; null while the export is not active
 * @param clients connected NBD clients; empty while the export is not active
 * @param tlsRequired served over TLS only
 * @param allowedClients the address blocks clients must come from (canonical CIDR); null for any client
 */
public record ExportView(String name, String device, String deviceKind, boolean readOnly, boolean raw, String description,
                         Instant createdAt, ObjectState state, Long sizeBytes, List<Client> clients,
                         boolean tlsRequired, List<String> allowedClients, String node) {

    /**
     * One connected NBD client.
     *
     * @param id the server's number for the connection
     * @param remoteAddress host:port of the client
     * @param requestsServed requests answered so far
     * @param inFlightBytes memory its requests in flight hold now
     * @param tls whether it is connected over TLS
     */
    public record Client(long id, String remoteAddress, Instant connectedAt, long requestsServed, long inFlightBytes,
                         boolean tls) {}
}
