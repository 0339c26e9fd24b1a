package io.blockwork.nbd;

import io.blockwork.nbd.protocol.NbdWire;
import java.time.Duration;
import java.util.Objects;

/**
 * Bounds that keep clients from hurting each other or the process.
 *
 * <p>Memory. Every request holds budget (its buffer's capacity plus {@link #REQUEST_OVERHEAD_BYTES})
 * from the moment its header is read until its reply is on the wire. Each connection has
 * {@code reservedBytesPerConnection} of its own; beyond that it borrows from one pool of
 * {@code sharedBytes} for the whole server, and it never holds more than {@code maxInFlightBytes}.
 * When a connection cannot take what its next request needs, the server stops reading that
 * client's requests (TCP pushes back on that client only) until replies go out. So a client that
 * others crowd out of the shared pool is still served out of its reservation, and the request
 * buffers of the whole server stay under {@link #memoryBound()} whatever clients do.
 *
 * @param maxBlockBytes largest READ or WRITE accepted, advertised as the maximum block size;
 *                      larger ones get EINVAL, except a WRITE of more than this and 32 MiB, a hard
 *                      disconnect (its payload is not worth reading); see {@link RequestCheck}
 * @param maxInFlightBytes memory one connection may hold in request buffers at most
 * @param handshakeTimeout a client that has not finished negotiating by then is disconnected
 * @param maxOptions options one client may send before the server gives up on it
 * @param maxConnections clients connected at once; the next one is refused (its socket closed at once)
 * @param reservedBytesPerConnection budget each connection has to itself, whatever the others do;
 *                                   also the most a connection keeps in idle buffers for reuse, and
 *                                   the most the server keeps of ended connections' buffers for
 *                                   the next ones
 * @param sharedBytes budget the connections borrow beyond their reservations, all together
 * @param replyTimeout a client that reads none of its replies for this long (the server's write to
 *                     it makes no progress) is disconnected, which gives back what its requests held
 */
public record NbdLimits(int maxBlockBytes, long maxInFlightBytes, Duration handshakeTimeout, int maxOptions,
                        int maxConnections, long reservedBytesPerConnection, long sharedBytes, Duration replyTimeout) {

    /** Bytes charged per request on top of its payload buffer, so payload-less floods are bounded too. */
    public static final int REQUEST_OVERHEAD_BYTES = 1024;

    public static final NbdLimits DEFAULT = new NbdLimits(NbdWire.DEFAULT_MAX_BLOCK_BYTES, 64L << 20,
            Duration.ofSeconds(30), 128, 64, 4L << 20, 256L << 20, Duration.ofSeconds(60));

    public NbdLimits {
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        Objects.requireNonNull(replyTimeout, "replyTimeout");
        if (maxBlockBytes < 4096 || Integer.bitCount(maxBlockBytes) != 1) {
            throw new IllegalArgumentException("maxBlockBytes must be a power of two >= 4096: " + maxBlockBytes);
        }
        long largest = (long) maxBlockBytes + REQUEST_OVERHEAD_BYTES;
        if (maxInFlightBytes < largest || maxInFlightBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("maxInFlightBytes must hold one largest request and fit in 2 GiB: "
                    + maxInFlightBytes);
        }
        if (reservedBytesPerConnection < 4096 + REQUEST_OVERHEAD_BYTES || reservedBytesPerConnection > maxInFlightBytes) {
            throw new IllegalArgumentException("reservedBytesPerConnection must hold one 4 KiB request and be at most "
                    + "maxInFlightBytes (" + maxInFlightBytes + "): " + reservedBytesPerConnection);
        }
        if (sharedBytes < 0 || reservedBytesPerConnection + sharedBytes < largest) {
            throw new IllegalArgumentException("reservedBytesPerConnection + sharedBytes must hold one largest request ("
                    + largest + " bytes): " + reservedBytesPerConnection + " + " + sharedBytes);
        }
        requirePositive("handshakeTimeout", handshakeTimeout);
        requirePositive("replyTimeout", replyTimeout);
        if (maxOptions < 1) {
            throw new IllegalArgumentException("maxOptions must be at least 1: " + maxOptions);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1: " + maxConnections);
        }
    }

    private static void requirePositive(String name, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
    }

    /**
     * The most native memory the server's request buffers take, whatever clients do: every
     * connection's reservation in use, as much again kept idle for reuse, one more reservation's
     * worth of spare buffers kept for the next connections, and the shared pool.
     */
    public long memoryBound() {
        return (2L * maxConnections + 1) * reservedBytesPerConnection + sharedBytes;
    }

    public NbdLimits withMaxInFlightBytes(long bytes) {
        return new NbdLimits(maxBlockBytes, bytes, handshakeTimeout, maxOptions, maxConnections,
                Math.min(reservedBytesPerConnection, bytes), sharedBytes, replyTimeout);
    }

    public NbdLimits withMaxBlockBytes(int bytes) {
        long largest = (long) bytes + REQUEST_OVERHEAD_BYTES;
        return new NbdLimits(bytes, Math.max(maxInFlightBytes, largest), handshakeTimeout, maxOptions,
                maxConnections, reservedBytesPerConnection, Math.max(sharedBytes, largest), replyTimeout);
    }

    public NbdLimits withHandshakeTimeout(Duration timeout) {
        return new NbdLimits(maxBlockBytes, maxInFlightBytes, timeout, maxOptions, maxConnections,
                reservedBytesPerConnection, sharedBytes, replyTimeout);
    }

    public NbdLimits withMaxConnections(int connections) {
        return new NbdLimits(maxBlockBytes, maxInFlightBytes, handshakeTimeout, maxOptions, connections,
                reservedBytesPerConnection, sharedBytes, replyTimeout);
    }

    /** The memory budget: each connection's own reservation and the pool they share. */
    public NbdLimits withMemory(long reservedPerConnection, long shared) {
        return new NbdLimits(maxBlockBytes, maxInFlightBytes, handshakeTimeout, maxOptions, maxConnections,
                reservedPerConnection, shared, replyTimeout);
    }

    public NbdLimits withReplyTimeout(Duration timeout) {
        return new NbdLimits(maxBlockBytes, maxInFlightBytes, handshakeTimeout, maxOptions, maxConnections,
                reservedBytesPerConnection, sharedBytes, timeout);
    }
}
