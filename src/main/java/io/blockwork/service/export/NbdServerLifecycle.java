package io.blockwork.service.export;

import io.blockwork.BlockworkProperties;
import io.blockwork.nbd.ExportTable;
import io.blockwork.nbd.NbdClient;
import io.blockwork.nbd.NbdLimits;
import io.blockwork.nbd.NbdServer;
import io.blockwork.nbd.NbdServerStatus;
import io.blockwork.nbd.NbdTls;
import io.blockwork.service.event.ExportClientEvents;
import java.net.InetSocketAddress;
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
 * <p>A port that cannot be bound or a setting that does not make sense stops the service from
 * starting, naming the setting to change: a service that silently does not export, or exports
 * without the TLS it was told to use, would be worse.
 */
@Component
public class NbdServerLifecycle implements SmartLifecycle {

    private final BlockworkProperties.Nbd config;
    private final ExportTable exports = new ExportTable();
    private final NbdServer server;

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
        BlockworkProperties.NbdTls tls = config.tls();
        if (tls.enabled()) {
            server.useTls(tls(bundle(bundles, tls.bundle()), tls));
            bundles.addBundleUpdateHandler(tls.bundle(), b -> server.useTls(tls(b, tls)));
        } else if (tls.verifyClients() || tls.required()) {
            throw new IllegalStateException("blockwork.nbd.tls.verify-clients and blockwork.nbd.tls.required need "
                    + "TLS: set blockwork.nbd.tls.bundle to an SSL bundle with the server's certificate and key");
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
    }

    @Override
    public void stop() {
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
        return server.isRunning() ? server.clients(exportName) : List.of();
    }

    /** Ends the connections of an export's clients once their requests in flight are answered. */
    void disconnect(String exportName) {
        server.disconnect(exportName);
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
        return server.status();
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
