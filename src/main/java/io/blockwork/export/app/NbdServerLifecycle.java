package io.blockwork.export.app;

import io.blockwork.BlockworkProperties;
import io.blockwork.nbd.ExportTable;
import io.blockwork.nbd.NbdClient;
import io.blockwork.nbd.NbdLimits;
import io.blockwork.nbd.NbdServer;
import io.blockwork.nbd.NbdServerStatus;
import io.blockwork.nbd.NbdTls;
import io.blockwork.shared.event.ExportClientEvents;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The service's one {@link NbdServer}, listening on {@code blockwork.nbd.address}:{@code port}
 * (port 0 picks a free one; {@link #endpoint()} tells which). It starts with the other
 * lifecycles, which is after start-up assembly has put the configured exports into its table,
 * so the first client already finds them; it stops before the beans that own the devices are
 * destroyed, answering the requests in flight first.
 *
 * <p>Its limits come from {@code blockwork.nbd.max-connections}, {@code .memory.*} and
 * {@code .reply-timeout}; TLS from the SSL bundle named by {@code blockwork.nbd.tls.bundle}
 * (PEM files, as qemu's {@code tls-creds-x509} directory holds them), and when the bundle's files
 * are reloaded ({@code reload-on-update}) new handshakes use the new certificate.
 *
 * <p>With {@code blockwork.nbd.unix-socket} set, a second server on that Unix-domain socket serves
 * the same export table, for clients on this machine ({@code nbd+unix:///NAME?socket=PATH}), under
 * the same connection limit, memory budget and TLS settings (see {@code docs/guide/nbd-security.md}
 * for how allow-lists treat its clients).
 *
 * <p>A port or socket that cannot be bound or a setting that does not make sense stops the service from
 * starting, naming the setting to change: a service that silently does not export, or exports
 * without the TLS it was told to use, would be worse.
 */
@Component
public class NbdServerLifecycle implements SmartLifecycle {

    private final BlockworkProperties.Nbd config;
    private final ExportTable exports = new ExportTable();
    private final NbdServer server;
    /** The Unix-domain socket's server, or null when {@code blockwork.nbd.unix-socket} is unset. */
    private final NbdServer unixServer;

    NbdServerLifecycle(BlockworkProperties properties, SslBundles bundles, ExportClientEvents clients) {
        this.config = properties.nbd();
        InetSocketAddress address;
        try {
            address = new InetSocketAddress(config.address(), config.port());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("blockwork.nbd.port " + config.port() + " is not a TCP port", e);
        }
        this.server = new NbdServer(address, exports, limits(config));
        server.listener(clients);
        this.unixServer = config.unixSocket() == null ? null
                : new NbdServer(UnixDomainSocketAddress.of(config.unixSocket().toAbsolutePath()), server);
        if (unixServer != null) {
            unixServer.listener(clients);
        }
        BlockworkProperties.NbdTls tls = config.tls();
        if (tls.enabled()) {
            useTls(tls(bundle(bundles, tls.bundle()), tls));
            bundles.addBundleUpdateHandler(tls.bundle(), b -> useTls(tls(b, tls)));
        } else if (tls.verifyClients() || tls.required()) {
            throw new IllegalStateException("blockwork.nbd.tls.verify-clients and blockwork.nbd.tls.required need "
                    + "TLS: set blockwork.nbd.tls.bundle to an SSL bundle with the server's certificate and key");
        }
    }

    private void useTls(NbdTls t) {
        server.useTls(t);
        if (unixServer != null) {
            unixServer.useTls(t);
        }
    }

    private static NbdLimits limits(BlockworkProperties.Nbd config) {
        BlockworkProperties.NbdMemory m = config.memory();
        try {
            return NbdLimits.DEFAULT.withMaxInFlightBytes(m.perConnection().toBytes())
                    .withMemory(m.reservedPerConnection().toBytes(), m.shared().toBytes())
                    .withMaxConnections(config.maxConnections()).withReplyTimeout(config.replyTimeout());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("blockwork.nbd.max-connections, .memory.* or .reply-timeout: "
                    + e.getMessage(), e);
        }
    }

    private static SslBundle bundle(SslBundles bundles, String name) {
        try {
            return bundles.getBundle(name);
        } catch (NoSuchSslBundleException e) {
            throw new IllegalStateException("blockwork.nbd.tls.bundle names SSL bundle '" + name + "', which is not "
                    + "configured (spring.ssl.bundle.pem." + name + ".keystore.certificate and .private-key)", e);
        }
    }

    private static NbdTls tls(SslBundle bundle, BlockworkProperties.NbdTls tls) {
        if (tls.verifyClients() && bundle.getStores().getTrustStore() == null) {
            throw new IllegalStateException("blockwork.nbd.tls.verify-clients needs the CA that signs client "
                    + "certificates: set spring.ssl.bundle.pem." + tls.bundle() + ".truststore.certificate");
        }
        return new NbdTls(bundle.createSslContext(), tls.verifyClients(), tls.required());
    }

    @Override
    public void start() {
        try {
            server.start();
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot start the NBD server on " + config.address() + ":" + config.port()
                    + " (" + e.getMessage() + "); choose another with blockwork.nbd.address and blockwork.nbd.port", e);
        }
        if (unixServer != null) {
            try {
                unixServer.start();
            } catch (RuntimeException e) {
                server.stop();
                throw new IllegalStateException("cannot serve NBD on the Unix socket " + config.unixSocket() + " ("
                        + e.getMessage() + "); choose another path with blockwork.nbd.unix-socket, or unset it", e);
            }
        }
    }

    @Override
    public void stop() {
        if (unixServer != null) {
            unixServer.stop();
        }
        server.stop();
    }

    @Override
    public boolean isRunning() {
        return server.isRunning();
    }

    /** The exports clients can reach; the server asks it at every handshake. */
    ExportTable exports() {
        return exports;
    }

    List<NbdClient> clients(String exportName) {
        List<NbdClient> all = new ArrayList<>(server.isRunning() ? server.clients(exportName) : List.of());
        if (unixServer != null && unixServer.isRunning()) {
            all.addAll(unixServer.clients(exportName));
        }
        return all;
    }

    /** Ends the connections of an export's clients once their requests in flight are answered. */
    void disconnect(String exportName) {
        server.disconnect(exportName);
        if (unixServer != null) {
            unixServer.disconnect(exportName);
        }
    }

    /** The Unix-domain socket clients may use, while it is served. */
    public Optional<Path> unixSocket() {
        return unixServer != null && unixServer.isRunning() ? Optional.of(config.unixSocket().toAbsolutePath())
                : Optional.empty();
    }

    /** Whether the server offers TLS, so exports may require it. */
    public boolean tlsEnabled() {
        return config.tls().enabled();
    }

    /** Whether clients must present a certificate from a trusted CA. */
    public boolean tlsVerifiesClients() {
        return config.tls().enabled() && config.tls().verifyClients();
    }

    /** Connections, memory, refusals and failures, for the health indicator. */
    public NbdServerStatus status() {
        NbdServerStatus s = server.status();
        return unixServer == null ? s : s.with(unixServer.status());
    }

    /** Where clients connect, with the real port; empty while the server is not running. */
    public Optional<NbdEndpoint> endpoint() {
        try {
            InetSocketAddress a = server.localAddress();
            return Optional.of(new NbdEndpoint(config.address(), a.getPort(), a.getAddress().isAnyLocalAddress()));
        } catch (IllegalStateException notRunning) {
            return Optional.empty();
        }
    }
}
