package io.blockwork;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code blockwork.*} settings.
 *
 * @param dataDir holds the H2 database, file disks ({@code disks/<name>.img}) and generated credentials
 * @param nbd where the NBD server listens; port 0 picks a free port (tests), see {@code GET /api/v1/system};
 *     {@code unix-socket}, a path, also serves NBD on a Unix-domain socket there (off when unset)
 * @param security passwords of the built-in users; blank means "generate one and keep it in the data dir"
 * @param nodeName this instance's name among those sharing one configuration database; blank
 *                 means the host name (see {@code persistence.node.LocalNode})
 * @param nodeLease how the node name is leased in the database (docs/guide/postgresql.md)
 */
@ConfigurationProperties("blockwork")
public record BlockworkProperties(@DefaultValue("./data") Path dataDir,
                                  @DefaultValue Nbd nbd,
                                  @DefaultValue Security security,
                                  String nodeName,
                                  @DefaultValue NodeLease nodeLease) {

    public record Nbd(@DefaultValue("127.0.0.1") String address, @DefaultValue("10809") int port, Path unixSocket) {}

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
