package io.blockwork;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The {@code blockwork.*} settings.
 *
 * @param dataDir holds the H2 database, file disks ({@code disks/<name>.img}) and generated credentials
 * @param nbd where the NBD server listens (port 0 picks a free port, see {@code GET /api/v1/system}), its
 *            limits and its TLS; {@code unix-socket}, a path, also serves NBD on a Unix-domain socket
 *            there (off when unset), under the same limits, memory budget and TLS
 * @param security passwords of the built-in users; blank means "generate one and keep it in the data dir"
 * @param nodeName this instance's name among those sharing one configuration database; blank
 *                 means the host name (see {@code shared.node.store.LocalNode})
 * @param nodeLease how the node name is leased in the database (docs/guide/postgresql.md)
 */
@ConfigurationProperties("blockwork")
public record BlockworkProperties(@DefaultValue("./data") Path dataDir,
                                  @DefaultValue Nbd nbd,
                                  @DefaultValue Security security,
                                  String nodeName,
                                  @DefaultValue NodeLease nodeLease) {

    /**
     * @param unixSocket also serve NBD on a Unix-domain socket at this path (off when unset)
     * @param maxConnections clients connected at once; more are refused
     * @param memory the request-memory budget (see {@code io.blockwork.nbd.NbdLimits})
     * @param replyTimeout a client that reads none of its replies for this long is disconnected
     * @param tls NBD_OPT_STARTTLS with X.509 certificates (off unless {@code bundle} is set)
     */
    public record Nbd(@DefaultValue("127.0.0.1") String address, @DefaultValue("10809") int port, Path unixSocket,
                      @DefaultValue("64") int maxConnections, @DefaultValue NbdMemory memory,
                      @DefaultValue("60s") Duration replyTimeout, @DefaultValue NbdTls tls) {

        /** The defaults, listening at {@code address:port} (for code that builds settings itself). */
        public static Nbd at(String address, int port) {
            return new Nbd(address, port, null, 64, new NbdMemory(DataSize.ofMegabytes(64), DataSize.ofMegabytes(4),
                    DataSize.ofMegabytes(256)), Duration.ofSeconds(60), new NbdTls(null, false, false));
        }
    }

    /**
     * @param perConnection the most one connection holds in requests in flight
     * @param reservedPerConnection what each connection has to itself, whatever the others do
     * @param shared what connections borrow beyond their reservations, all together
     */
    public record NbdMemory(@DefaultValue("64MB") DataSize perConnection,
                            @DefaultValue("4MB") DataSize reservedPerConnection,
                            @DefaultValue("256MB") DataSize shared) {}

    /**
     * @param bundle the name of a Spring SSL bundle ({@code spring.ssl.bundle.pem.<name>.*}) with the
     *               server's certificate and key; blank: no TLS
     * @param verifyClients require client certificates signed by a CA in the bundle's trust store
     * @param required every export needs TLS (the protocol's FORCEDTLS mode), not only those marked
     *                 {@code tls: required}
     */
    public record NbdTls(String bundle, @DefaultValue("false") boolean verifyClients,
                         @DefaultValue("false") boolean required) {

        public boolean enabled() {
            return bundle != null && !bundle.isBlank();
        }
    }

    public record Security(String adminPassword, String viewerPassword) {}

    /**
     * @param ttl a lease whose heartbeat is older than this is free to take (a node that died)
     * @param heartbeat how often the holder renews it; well below {@code ttl}
     */
    public record NodeLease(@DefaultValue("15s") Duration ttl, @DefaultValue("3s") Duration heartbeat) {}

    /** Directory of file-backed disk images. */
    public Path diskDir() {
        return dataDir.resolve("disks");
    }
}
