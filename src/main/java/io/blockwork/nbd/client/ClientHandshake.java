package io.blockwork.nbd.client;

import io.blockwork.nbd.protocol.NbdOption;
import io.blockwork.nbd.protocol.NbdWire;
import io.blockwork.nbd.protocol.OptionReply;
import io.blockwork.nbd.protocol.TransmissionFlag;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.charset.StandardCharsets;

/**
 * The client side of fixed-newstyle negotiation: checks the greeting, asks for structured replies,
 * then {@code NBD_OPT_GO} with a request for the block-size constraints, and returns what the
 * server said. A server that is not fixed newstyle, refuses the export or breaks the protocol gets
 * an {@link IOException} naming what went wrong; the caller closes the channel.
 */
final class ClientHandshake {

    /** Option replies longer than this are a broken server, not data to buffer. */
    private static final int MAX_OPTION_REPLY = 64 * 1024;

    private ClientHandshake() {}

    static ExportInfo negotiate(ByteChannel channel, String exportName) throws IOException {
        ByteBuffer greeting = read(channel, 18);
        if (greeting.getLong() != NbdWire.INIT_MAGIC || greeting.getLong() != NbdWire.OPTION_MAGIC) {
            throw new IOException("not an NBD newstyle server (bad greeting)");
        }
        int handshakeFlags = Short.toUnsignedInt(greeting.getShort());
        if ((handshakeFlags & NbdWire.FLAG_FIXED_NEWSTYLE) == 0) {
            throw new IOException("the server is not fixed newstyle");
        }
        int clientFlags = NbdWire.CLIENT_FLAG_FIXED_NEWSTYLE
                | (handshakeFlags & NbdWire.FLAG_NO_ZEROES) * NbdWire.CLIENT_FLAG_NO_ZEROES / NbdWire.FLAG_NO_ZEROES;
        write(channel, ByteBuffer.allocate(4).putInt(clientFlags).flip());

        sendOption(channel, NbdOption.STRUCTURED_REPLY, new byte[0]);
        Reply sr = readReply(channel, NbdOption.STRUCTURED_REPLY);
        boolean structured = sr.type() == OptionReply.ACK.code();
        if (!structured && !OptionReply.of(sr.type()).isError()) {
            throw new IOException("unexpected reply " + sr.type() + " to NBD_OPT_STRUCTURED_REPLY");
        }

        byte[] name = exportName.getBytes(StandardCharsets.UTF_8);
        ByteBuffer go = ByteBuffer.allocate(4 + name.length + 2 + 2);
        go.putInt(name.length).put(name).putShort((short) 1).putShort((short) NbdWire.INFO_BLOCK_SIZE).flip();
        sendOption(channel, NbdOption.GO, go.array());
        long size = -1;
        int flags = 0;
        int minimum = 1;
        int preferred = 4096;
        int maximum = NbdWire.DEFAULT_MAX_BLOCK_BYTES;
        while (true) {
            Reply r = readReply(channel, NbdOption.GO);
            if (r.type() == OptionReply.ACK.code()) {
                break;
            }
            if (r.type() == OptionReply.INFO.code()) {
                ByteBuffer info = ByteBuffer.wrap(r.data());
                if (info.remaining() < 2) {
                    throw new IOException("an NBD_REP_INFO reply without an info type");
                }
                int type = Short.toUnsignedInt(info.getShort());
                if (type == NbdWire.INFO_EXPORT && info.remaining() >= 10) {
                    size = info.getLong();
                    flags = Short.toUnsignedInt(info.getShort());
                } else if (type == NbdWire.INFO_BLOCK_SIZE && info.remaining() >= 12) {
                    minimum = info.getInt();
                    preferred = info.getInt();
                    maximum = info.getInt();
                }
                continue;
            }
            OptionReply kind = OptionReply.of(r.type());
            String message = new String(r.data(), StandardCharsets.UTF_8);
            throw new IOException("the server refused export '" + exportName + "': "
                    + (kind == null ? "reply " + r.type() : kind.name()) + (message.isEmpty() ? "" : " (" + message + ")"));
        }
        if (size < 0) {
            throw new IOException("the server finished NBD_OPT_GO without NBD_INFO_EXPORT");
        }
        if ((flags & TransmissionFlag.HAS_FLAGS.mask()) == 0) {
            flags = 0;
        }
        return new ExportInfo(size, TransmissionFlag.decode(flags), Math.max(1, minimum), Math.max(1, preferred),
                maximum <= 0 ? NbdWire.DEFAULT_MAX_BLOCK_BYTES : maximum, structured);
    }

    /** Ends negotiation politely (used when only probing). */
    static void abort(ByteChannel channel) throws IOException {
        sendOption(channel, NbdOption.ABORT, new byte[0]);
    }

    private record Reply(int type, byte[] data) {}

    private static void sendOption(ByteChannel channel, NbdOption option, byte[] data) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(NbdWire.OPTION_HEADER_BYTES + data.length);
        b.putLong(NbdWire.OPTION_MAGIC).putInt(option.code()).putInt(data.length).put(data).flip();
        write(channel, b);
    }

    private static Reply readReply(ByteChannel channel, NbdOption option) throws IOException {
        ByteBuffer h = read(channel, NbdWire.OPTION_REPLY_HEADER_BYTES);
        if (h.getLong() != NbdWire.OPTION_REPLY_MAGIC) {
            throw new IOException("bad option reply magic");
        }
        int replyTo = h.getInt();
        int type = h.getInt();
        int length = h.getInt();
        if (replyTo != option.code()) {
            throw new IOException("a reply to option " + replyTo + " while waiting for " + option);
        }
        if (length < 0 || length > MAX_OPTION_REPLY) {
            throw new IOException("an option reply of " + Integer.toUnsignedString(length) + " bytes");
        }
        return new Reply(type, read(channel, length).array());
    }

    static ByteBuffer read(ByteChannel channel, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (channel.read(b) < 0) {
                throw new EOFException("the server closed the connection during the handshake");
            }
        }
        return b.flip();
    }

    private static void write(ByteChannel channel, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            channel.write(b);
        }
    }
}
