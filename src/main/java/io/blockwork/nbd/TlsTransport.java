package io.blockwork.nbd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/**
 * NBD over TLS, after NBD_OPT_STARTTLS: the JDK's {@link SSLSocket} layered on the connection's
 * socket, which lets one thread read while another writes. Bytes are copied through heap arrays
 * of one TLS record (the cipher has to touch every byte anyway), and a write of many buffers is
 * packed into records of up to 16 KiB, so small replies do not each cost a record.
 *
 * <p>A hard disconnect closes the socket underneath without close_notify (the peer may not be
 * reading); an orderly end sends close_notify first ({@link #closeGracefully}).
 */
final class TlsTransport implements Transport {

    /** The most plaintext one TLS record carries. */
    static final int RECORD_BYTES = 16 << 10;
    /** Versions offered: the NBD spec requires 1.2 and recommends later ones; older are off. */
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final SSLSocket socket;
    private final InputStream in;
    private final OutputStream out;
    /** Reader-confined. */
    private final byte[] inBytes = new byte[RECORD_BYTES];
    /** Used by one sender at a time (the caller serialises writes). */
    private final byte[] outBytes = new byte[RECORD_BYTES];

    private TlsTransport(SSLSocket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /**
     * Runs the server side of the TLS handshake on {@code channel} (after the NBD_REP_ACK to
     * STARTTLS). Fails, and the caller drops the connection, if the handshake does: no shared
     * protocol or cipher, or a client certificate missing or not signed by a trusted CA when
     * {@link NbdTls#verifyClients()}.
     */
    static TlsTransport accept(SocketChannel channel, NbdTls tls) throws IOException {
        Socket plain = channel.socket();
        SSLSocket s = (SSLSocket) tls.context().getSocketFactory().createSocket(plain,
                plain.getInetAddress().getHostAddress(), plain.getPort(), true);
        s.setUseClientMode(false);
        s.setNeedClientAuth(tls.verifyClients());
        s.setEnabledProtocols(Arrays.stream(PROTOCOLS)
                .filter(p -> Arrays.asList(s.getSupportedProtocols()).contains(p)).toArray(String[]::new));
        try {
            s.startHandshake();
        } catch (SSLException e) {
            throw new TlsFailure("TLS handshake failed: " + e.getMessage(), e);
        }
        return new TlsTransport(s);
    }

    /** The TLS handshake failed: the connection is dropped, as the spec requires after the ACK. */
    static final class TlsFailure extends IOException {
        TlsFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    @Override
    public int read(ByteBuffer into) throws IOException {
        int n = in.read(inBytes, 0, Math.min(inBytes.length, into.remaining()));
        if (n > 0) {
            into.put(inBytes, 0, n);
        }
        return n;
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int count) throws IOException {
        int packed = 0;
        for (int i = offset; i < offset + count && packed < outBytes.length; i++) {
            ByteBuffer b = sources[i];
            int n = Math.min(b.remaining(), outBytes.length - packed);
            b.get(outBytes, packed, n);
            packed += n;
        }
        out.write(outBytes, 0, packed);
        return packed;
    }

    @Override
    public boolean secure() {
        return true;
    }

    /**
     * Sends close_notify (then the TCP FIN); the caller closes the socket and bounds how long this
     * may block. Not {@link SSLSocket#close()}: for TLS 1.3 the JDK precedes close_notify with a
     * user_canceled alert there, which GnuTLS clients (libnbd, qemu) report as a fatal error.
     */
    void closeGracefully() {
        try {
            socket.shutdownOutput();
        } catch (IOException ignored) {
            // the connection is going away either way
        }
    }
}
