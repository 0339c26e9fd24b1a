package io.blockwork;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code blockwork.*} settings.
 *
 * @param dataDir holds the H2 database, file disks ({@code disks/<name>.img}) and generated credentials
 * @param nbd where the NBD server listens; port 0 picks a free port (tests), see {@code GET /api/v1/system};
 *     {@code unix-socket}, a path, also serves NBD on a Unix-domain socket there (off when unset)
 * @param security passwords of the built-in users; blank means "generate one and keep it in the data dir"
 */
@ConfigurationProperties("blockwork")
public record BlockworkProperties(@DefaultValue("./data") Path dataDir,
                                  @DefaultValue Nbd nbd,
                                  @DefaultValue Security security) {

    public record Nbd(@DefaultValue("127.0.0.1") String address, @DefaultValue("10809") int port, Path unixSocket) {}

    public record Security(String adminPassword, String viewerPassword) {}

    /** Directory of file-backed disk images. */
    public Path diskDir() {
        return dataDir.resolve("disks");
    }
}
