package io.blockwork.nbd;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The byte stream a connection speaks NBD over: the TCP socket itself ({@link PlainTransport}),
 * or TLS on top of it once the client asked for NBD_OPT_STARTTLS ({@link TlsTransport}). One
 * thread reads; senders write one at a time (the caller serialises them).
 */
sealed interface Transport permits PlainTransport, TlsTransport {

    /** Reads what is available (at least one byte, blocking), or returns -1 at end of stream. */
    int read(ByteBuffer into) throws IOException;

    /** Writes some of {@code sources[offset..offset+count)} (blocking until at least one byte); returns how much. */
    long write(ByteBuffer[] sources, int offset, int count) throws IOException;

    /** Whether the stream is encrypted and authenticated with TLS. */
    boolean secure();

    /** Fills {@code into} completely. */
    default void readFully(ByteBuffer into) throws IOException {
        while (into.hasRemaining()) {
            if (read(into) < 0) {
                throw new java.io.EOFException("client closed the connection");
            }
        }
    }

    /** Writes every remaining byte of {@code sources[0..count)}. */
    default void writeFully(ByteBuffer[] sources, int count) throws IOException {
        int first = 0;
        while (first < count) {
            write(sources, first, count - first);
            while (first < count && !sources[first].hasRemaining()) {
                first++;
            }
        }
    }
}
