package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdOption;
import io.blockwork.nbd.protocol.NbdWire;
import io.blockwork.nbd.protocol.OptionReply;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A hand-written NBD client for tests: it can follow the protocol, or break it on purpose. Every
 * socket operation has a timeout, so a server that hangs fails the test instead of stalling it.
 */
public final class RawNbdClient implements AutoCloseable {

    public static final int TIMEOUT_MS = 10_000;

    private Socket socket;
    private DataInputStream in;
    private DataOutputStream out;
    private final Map<Long, Integer> readLengths = new ConcurrentHashMap<>();
    private boolean structured;
    public long exportSize;
    public int transmissionFlags;
    public int handshakeFlags;

    public record OptReply(int option, int type, byte[] data) {
        public OptionReply kind() {
            return OptionReply.of(type);
        }

        public String text() {
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    /** A whole reply to one request; {@code error} 0 on success. */
    public record Reply(long handle, int error, byte[] data, String message, boolean structured) {}

    private RawNbdClient(Socket socket) throws IOException {
        socket.setSoTimeout(TIMEOUT_MS);
        socket.setTcpNoDelay(true);
        use(socket);
    }

    private void use(Socket s) throws IOException {
        socket = s;
        in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 1 << 16));
        out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1 << 16));
    }

    public static RawNbdClient connect(int port) {
        return connect(port, null);
    }

    /** Connects from a given local address (any 127.x.y.z works on Linux), e.g. to test allow-lists. */
    public static RawNbdClient connect(int port, InetAddress from) {
        try {
            Socket s = new Socket();
            if (from != null) {
                s.bind(new InetSocketAddress(from, 0));
            }
            s.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MS);
            return new RawNbdClient(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * NBD_OPT_STARTTLS; on ACK runs the TLS handshake as a client with {@code context} and goes
     * on over TLS. Returns the reply to the option (an error leaves the connection in plain text).
     */
    public OptReply startTls(SSLContext context) {
        sendOption(NbdOption.STARTTLS.code(), new byte[0]);
        OptReply r = readOptionReply();
        if (r.kind() == OptionReply.ACK) {
            try {
                SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(socket, "localhost",
                        socket.getPort(), true);
                tls.setUseClientMode(true);
                SSLParameters p = tls.getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS"); // check the certificate names the host
                tls.setSSLParameters(p);
                tls.startHandshake();
                use(tls);
                structured = false;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return r;
    }

    /* ---- Handshake ---- */

    /** Reads the server greeting and answers with fixed-newstyle and no-zeroes. */
    public RawNbdClient greet() {
        return greet(NbdWire.CLIENT_FLAG_FIXED_NEWSTYLE | NbdWire.CLIENT_FLAG_NO_ZEROES);
    }

    public RawNbdClient greet(int clientFlags) {
        try {
            assertThat(in.readLong()).isEqualTo(NbdWire.INIT_MAGIC);
            assertThat(in.readLong()).isEqualTo(NbdWire.OPTION_MAGIC);
            handshakeFlags = in.readUnsignedShort();
            out.writeInt(clientFlags);
            out.flush();
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void sendOption(int option, byte[] data) {
        try {
            out.writeLong(NbdWire.OPTION_MAGIC);
            out.writeInt(option);
            out.writeInt(data.length);
            out.write(data);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public OptReply readOptionReply() {
        try {
            assertThat(in.readLong()).isEqualTo(NbdWire.OPTION_REPLY_MAGIC);
            int option = in.readInt();
            int type = in.readInt();
            int length = in.readInt();
            byte[] data = new byte[length];
            in.readFully(data);
            return new OptReply(option, type, data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends an option and reads replies up to the final one (ACK or an error). */
    public List<OptReply> option(NbdOption option, byte[] data) {
        return option(option.code(), data);
    }

    public List<OptReply> option(int code, byte[] data) {
        sendOption(code, data);
        List<OptReply> replies = new ArrayList<>();
        while (true) {
            OptReply r = readOptionReply();
            assertThat(r.option()).isEqualTo(code);
            replies.add(r);
            if (r.type() == OptionReply.ACK.code() || r.type() < 0) {
                return replies;
            }
        }
    }

    /** NBD_OPT_LIST_META_CONTEXT or NBD_OPT_SET_META_CONTEXT with these queries. */
    public List<OptReply> metaContext(NbdOption option, String export, String... queries) {
        byte[] n = export.getBytes(StandardCharsets.UTF_8);
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        ByteBuffer head = ByteBuffer.allocate(8 + n.length).putInt(n.length).put(n).putInt(queries.length);
        b.writeBytes(head.array());
        for (String q : queries) {
            byte[] qb = q.getBytes(StandardCharsets.UTF_8);
            b.writeBytes(ByteBuffer.allocate(4).putInt(qb.length).array());
            b.writeBytes(qb);
        }
        return option(option, b.toByteArray());
    }

    /** One BLOCK_STATUS run: its length and NBD_STATE_* flags. */
    public record Status(long length, int flags) {}

    /** NBD_CMD_BLOCK_STATUS; the runs of the (single-context) reply, after checking its context id. */
    public List<Status> blockStatus(long handle, long offset, int length, int flags, int contextId) {
        send(NbdCommand.BLOCK_STATUS, flags, handle, offset, length, null);
        Reply r = reply();
        assertThat(r.error()).as("BLOCK_STATUS error: %s", r.message()).isZero();
        ByteBuffer p = ByteBuffer.wrap(r.data());
        assertThat(p.getInt()).as("context id").isEqualTo(contextId);
        List<Status> out = new ArrayList<>();
        while (p.hasRemaining()) {
            out.add(new Status(Integer.toUnsignedLong(p.getInt()), p.getInt()));
        }
        return out;
    }

    public void negotiateStructuredReplies() {
        List<OptReply> r = option(NbdOption.STRUCTURED_REPLY, new byte[0]);
        assertThat(r.getLast().kind()).isEqualTo(OptionReply.ACK);
        structured = true;
    }

    /** NBD_OPT_LIST: the names of the exports the server shows this client. */
    public List<String> listNames() {
        List<OptReply> replies = option(NbdOption.LIST, new byte[0]);
        assertThat(replies.getLast().kind()).as("LIST: %s", replies.getLast().text()).isEqualTo(OptionReply.ACK);
        List<String> names = new ArrayList<>();
        for (OptReply r : replies.subList(0, replies.size() - 1)) {
            int length = ByteBuffer.wrap(r.data()).getInt();
            names.add(new String(r.data(), 4, length, StandardCharsets.UTF_8));
        }
        return names;
    }

    public static byte[] infoRequest(String name, int... infos) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + n.length + 2 + 2 * infos.length);
        b.putInt(n.length).put(n).putShort((short) infos.length);
        for (int i : infos) {
            b.putShort((short) i);
        }
        return b.array();
    }

    /** NBD_OPT_GO; on success records size and flags and enters transmission. */
    public List<OptReply> tryGo(String name, int... infos) {
        List<OptReply> replies = option(NbdOption.GO, infoRequest(name, infos));
        for (OptReply r : replies) {
            if (r.type() == OptionReply.INFO.code() && ByteBuffer.wrap(r.data()).getShort() == NbdWire.INFO_EXPORT) {
                ByteBuffer b = ByteBuffer.wrap(r.data(), 2, 10);
                exportSize = b.getLong();
                transmissionFlags = Short.toUnsignedInt(b.getShort());
            }
        }
        return replies;
    }

    public RawNbdClient go(String name) {
        List<OptReply> r = tryGo(name, NbdWire.INFO_BLOCK_SIZE);
        assertThat(r.getLast().kind()).as("GO %s: %s", name, r.getLast().text()).isEqualTo(OptionReply.ACK);
        return this;
    }

    /** NBD_OPT_EXPORT_NAME with no-zeroes negotiated: reads size and flags. */
    public RawNbdClient exportName(String name) {
        sendOption(NbdOption.EXPORT_NAME.code(), name.getBytes(StandardCharsets.UTF_8));
        return readExportNameReply();
    }

    /** The server's answer to NBD_OPT_EXPORT_NAME (no-zeroes negotiated): size and flags. */
    public RawNbdClient readExportNameReply() {
        try {
            exportSize = in.readLong();
            transmissionFlags = in.readUnsignedShort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /* ---- Transmission ---- */

    public void send(NbdCommand cmd, int flags, long handle, long offset, int length, byte[] payload) {
        sendRaw(NbdWire.REQUEST_MAGIC, cmd.code(), flags, handle, offset, length, payload);
    }

    /** One request as it goes on the wire, for a test that must hand the server several in one write. */
    public static byte[] request(NbdCommand cmd, int flags, long handle, long offset, int length, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(NbdWire.REQUEST_HEADER_BYTES + (payload == null ? 0 : payload.length));
        b.putInt(NbdWire.REQUEST_MAGIC).putShort((short) flags).putShort((short) cmd.code()).putLong(handle)
                .putLong(offset).putInt(length);
        if (payload != null) {
            b.put(payload);
        }
        return b.array();
    }

    public void sendRaw(int magic, int type, int flags, long handle, long offset, int length, byte[] payload) {
        if (type == NbdCommand.READ.code()) {
            readLengths.put(handle, length);
        }
        try {
            out.writeInt(magic);
            out.writeShort(flags);
            out.writeShort(type);
            out.writeLong(handle);
            out.writeLong(offset);
            out.writeInt(length);
            if (payload != null) {
                out.write(payload);
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code count} READs of {@code length} bytes, handles 0 to count - 1, offsets cycling through
     * the first {@code span} bytes, pipelined in one write (as fast as a client can queue them).
     */
    public void sendReads(int count, int length, long span) {
        try {
            for (int h = 0; h < count; h++) {
                readLengths.put((long) h, length);
                out.writeInt(NbdWire.REQUEST_MAGIC);
                out.writeShort(0);
                out.writeShort(NbdCommand.READ.code());
                out.writeLong(h);
                out.writeLong(h * (long) length % span);
                out.writeInt(length);
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void sendBytes(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads the next complete reply (all chunks of a structured one). */
    public Reply reply() {
        try {
            int magic = in.readInt();
            if (magic == NbdWire.SIMPLE_REPLY_MAGIC) {
                int error = in.readInt();
                long handle = in.readLong();
                Integer len = readLengths.remove(handle);
                byte[] data = new byte[0];
                if (len != null && error == 0) {
                    data = new byte[len];
                    in.readFully(data);
                }
                return new Reply(handle, error, data, null, false);
            }
            assertThat(magic).as("reply magic").isEqualTo(NbdWire.STRUCTURED_REPLY_MAGIC);
            assertThat(structured).as("structured reply without negotiation").isTrue();
            long handle = -1;
            int error = 0;
            String message = null;
            java.io.ByteArrayOutputStream data = new java.io.ByteArrayOutputStream();
            boolean done = false;
            while (!done) {
                if (handle != -1) {
                    assertThat(in.readInt()).isEqualTo(NbdWire.STRUCTURED_REPLY_MAGIC);
                }
                int flags = in.readUnsignedShort();
                int type = in.readUnsignedShort();
                handle = in.readLong();
                int length = in.readInt();
                done = (flags & NbdWire.REPLY_FLAG_DONE) != 0;
                byte[] payload = new byte[length];
                in.readFully(payload);
                ByteBuffer p = ByteBuffer.wrap(payload);
                if (type == NbdWire.REPLY_TYPE_OFFSET_DATA) {
                    p.getLong();
                    data.write(payload, 8, length - 8);
                } else if (type == NbdWire.REPLY_TYPE_BLOCK_STATUS) {
                    data.write(payload, 0, length); // context id, then (length, flags) pairs
                } else if (type == NbdWire.REPLY_TYPE_ERROR) {
                    error = p.getInt();
                    int mlen = p.getShort() & 0xffff;
                    message = new String(payload, 6, mlen, StandardCharsets.UTF_8);
                } else {
                    assertThat(type).as("chunk type").isEqualTo(NbdWire.REPLY_TYPE_NONE);
                }
            }
            readLengths.remove(handle);
            return new Reply(handle, error, data.toByteArray(), message, true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Reply write(long handle, long offset, byte[] data, int flags) {
        send(NbdCommand.WRITE, flags, handle, offset, data.length, data);
        return reply();
    }

    public Reply read(long handle, long offset, int length) {
        send(NbdCommand.READ, 0, handle, offset, length, null);
        return reply();
    }

    public Reply flush(long handle) {
        send(NbdCommand.FLUSH, 0, handle, 0, 0, null);
        return reply();
    }

    public void disconnect() {
        send(NbdCommand.DISC, 0, 0, 0, 0, null);
    }

    /** True if the server closed the connection: end of stream or reset before the timeout. */
    public boolean closedByServer() {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException | SSLException e) {
            return true; // connection reset, or TLS cut off without close_notify
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Drains whatever the server still sends and reports whether it then closed. */
    public boolean closedAfterDraining() {
        try {
            while (in.read() >= 0) {
                // discard
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException | EOFException | SSLException e) {
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One byte off the wire, for tests that check padding. */
    public int readRawByte() {
        try {
            return in.readUnsignedByte();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void shutdownOutput() {
        try {
            socket.shutdownOutput();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
