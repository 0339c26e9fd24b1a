package io.blockwork.nbd.client;

import java.time.Duration;

/**
 * How a remote device talks to its server.
 *
 * @param connections connections to open; more than one only if the server offers CAN_MULTI_CONN
 * @param requestTimeout a request unanswered this long ends its connection (every request in flight
 *                       fails) and the client reconnects; also bounds connecting and the handshake
 * @param logicalBlockSize the device's block size: 512 or 4096, at least the server's minimum
 */
public record NbdClientConfig(NbdUri uri, int connections, Duration requestTimeout, int logicalBlockSize) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    public static final int MAX_CONNECTIONS = 16;

    public NbdClientConfig {
        if (connections < 1 || connections > MAX_CONNECTIONS) {
            throw new IllegalArgumentException("connections must be 1.." + MAX_CONNECTIONS + ", not " + connections);
        }
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("the request timeout must be positive");
        }
        if (logicalBlockSize != 512 && logicalBlockSize != 4096) {
            throw new IllegalArgumentException("logical block size must be 512 or 4096");
        }
    }

    public static NbdClientConfig of(String uri) {
        return new NbdClientConfig(NbdUri.parse(uri), 1, DEFAULT_TIMEOUT, 512);
    }
}
