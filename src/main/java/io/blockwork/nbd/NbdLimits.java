package io.blockwork.nbd;

import io.blockwork.nbd.protocol.NbdWire;
import java.time.Duration;
import java.util.Objects;

/**
 * Per-connection bounds that keep one client from hurting the others.
 *
 * @param maxBlockBytes largest READ or WRITE accepted, advertised as the maximum block size;
 *                      larger reads get EINVAL, larger writes a hard disconnect (the payload is
 *                      not worth reading)
 * @param maxInFlightBytes memory one connection may hold in request buffers; when it is reached
 *                         the server stops reading that client's requests until replies go out
 * @param handshakeTimeout a client that has not finished negotiating by then is disconnected
 * @param maxOptions options one client may send before the server gives up on it
 */
public record NbdLimits(int maxBlockBytes, long maxInFlightBytes, Duration handshakeTimeout, int maxOptions) {

    /** Bytes charged per request on top of its payload buffer, so payload-less floods are bounded too. */
    public static final int REQUEST_OVERHEAD_BYTES = 1024;

    public static final NbdLimits DEFAULT = new NbdLimits(
            NbdWire.DEFAULT_MAX_BLOCK_BYTES, 64L << 20, Duration.ofSeconds(30), 128);

    public NbdLimits {
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        if (maxBlockBytes < 4096 || Integer.bitCount(maxBlockBytes) != 1) {
            throw new IllegalArgumentException("maxBlockBytes must be a power of two >= 4096: " + maxBlockBytes);
        }
        if (maxInFlightBytes < (long) maxBlockBytes + REQUEST_OVERHEAD_BYTES || maxInFlightBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("maxInFlightBytes must hold one largest request and fit in 2 GiB: "
                    + maxInFlightBytes);
        }
        if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("handshakeTimeout must be positive: " + handshakeTimeout);
        }
        if (maxOptions < 1) {
            throw new IllegalArgumentException("maxOptions must be at least 1: " + maxOptions);
        }
    }

    public NbdLimits withMaxInFlightBytes(long bytes) {
        return new NbdLimits(maxBlockBytes, bytes, handshakeTimeout, maxOptions);
    }

    public NbdLimits withMaxBlockBytes(int bytes) {
        return new NbdLimits(bytes, Math.max(maxInFlightBytes, (long) bytes + REQUEST_OVERHEAD_BYTES),
                handshakeTimeout, maxOptions);
    }

    public NbdLimits withHandshakeTimeout(Duration timeout) {
        return new NbdLimits(maxBlockBytes, maxInFlightBytes, timeout, maxOptions);
    }
}
