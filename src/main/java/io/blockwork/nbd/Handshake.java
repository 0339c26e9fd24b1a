package io.blockwork.nbd;

import static io.blockwork.nbd.protocol.TransmissionFlag.CAN_MULTI_CONN;
import static io.blockwork.nbd.protocol.TransmissionFlag.HAS_FLAGS;
import static io.blockwork.nbd.protocol.TransmissionFlag.READ_ONLY;
import static io.blockwork.nbd.protocol.TransmissionFlag.SEND_CACHE;
import static io.blockwork.nbd.protocol.TransmissionFlag.SEND_FLUSH;
import static io.blockwork.nbd.protocol.TransmissionFlag.SEND_FUA;
import static io.blockwork.nbd.protocol.TransmissionFlag.SEND_TRIM;
import static io.blockwork.nbd.protocol.TransmissionFlag.SEND_WRITE_ZEROES;

import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.nbd.NbdExport.Access;
import io.blockwork.nbd.protocol.NbdOption;
import io.blockwork.nbd.protocol.NbdWire;
import io.blockwork.nbd.protocol.OptionReply;
import io.blockwork.nbd.protocol.TransmissionFlag;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The fixed-newstyle handshake: greeting, client flags, then option haggling until the client
 * picks an export (NBD_OPT_GO or NBD_OPT_EXPORT_NAME) or gives up.
 *
 * <p>Options this server does not implement (extended headers, anything unknown) are answered
 * with NBD_REP_ERR_UNSUP and haggling continues, as the baseline of the
 * specification requires. A client that breaks a MUST (bad magic, unknown client flags, an
 * oversized option, too many options, an unknown name in NBD_OPT_EXPORT_NAME, which cannot carry
 * an error) gets a hard disconnect.
 *
 * <p>Access. With TLS configured ({@link NbdTls}), NBD_OPT_STARTTLS is acknowledged and the rest
 * of the connection runs over TLS; what was negotiated before it (structured replies) is
 * forgotten. The server is then in the spec's SELECTIVETLS mode (exports marked TLS-only are
 * left out of NBD_OPT_LIST and refused with NBD_REP_ERR_TLS_REQD until TLS is up), or in FORCEDTLS
 * mode if {@link NbdTls#requiredForAll()} (every option but STARTTLS and ABORT is refused that
 * way). An export's allow-list is checked first: a client from another address does not see the
 * export and gets NBD_REP_ERR_POLICY. Where the option cannot carry an error
 * (NBD_OPT_EXPORT_NAME), a refusal is a hard disconnect.
 *
 * <p>Claim before the last reply. The export is handed to the connection ({@code claim}) before
 * the reply that ends the handshake is sent, so a client that has its reply is already listed
 * by the server and reached by {@link NbdServer#disconnect}; an export removed in between is
 * refused here rather than served after its removal.
 *
 * <p>Size note: a little over 400 lines because every option shares the negotiation's state
 * (transport, structured replies, the selected meta context) and the access rules that each
 * option must apply the same way; the wire constants live in {@code protocol}.
 */
final class Handshake {

    /** Longest option payload accepted: a maximal export name plus a generous info list. */
    static final int MAX_OPTION_BYTES = NbdWire.MAX_STRING_BYTES + 1024;

    /**
     * What negotiation settled: the export, whether READ replies are structured, whether
     * {@code base:allocation} was selected for it (BLOCK_STATUS is then allowed), and the stream
     * (TLS or not).
     */
    record Result(NbdExport export, boolean structuredReplies, boolean allocationContext, Transport transport) {}

    private final SocketChannel channel;
    private final InetAddress client;
    private final ExportLookup exports;
    private final NbdLimits limits;
    /** Null when the server has no TLS configured (the spec's NOTLS mode). */
    private final NbdTls tls;
    /** Takes the chosen export before the last reply goes out; false if it is no longer exported. */
    private final Predicate<Result> claim;
    private final ByteBuffer out = ByteBuffer.allocate(2 * NbdWire.MAX_STRING_BYTES + 64);
    private final ByteBuffer[] outArray = {out};
    private Transport transport;
    private boolean structuredReplies;
    /** The export the last NBD_OPT_SET_META_CONTEXT selected base:allocation for, else null. */
    private String allocationContextFor;

    Handshake(SocketChannel channel, InetAddress client, ExportLookup exports, NbdLimits limits, NbdTls tls,
              Predicate<Result> claim) {
        this.channel = channel;
        this.claim = claim;
        this.transport = new PlainTransport(channel);
        this.client = client;
        this.exports = exports;
        this.limits = limits;
        this.tls = tls;
    }

    /** Whether the client must start TLS before this option (FORCEDTLS, TLS not yet up). */
    private boolean tlsFirst(NbdOption option) {
        return tls != null && tls.requiredForAll() && !transport.secure()
                && option != NbdOption.STARTTLS && option != NbdOption.ABORT;
    }

    /**
     * Sends the server's greeting, the handshake's first 18 bytes. The accepting thread sends it
     * before it hands the connection to the thread that runs {@link #negotiate}, so the client
     * reads it without waiting for that hand-off; on a new socket, whose send buffer is empty, the
     * write does not block.
     */
    static void greet(SocketChannel channel) throws IOException {
        ByteBuffer greeting = ByteBuffer.allocate(18).putLong(NbdWire.INIT_MAGIC).putLong(NbdWire.OPTION_MAGIC)
                .putShort((short) (NbdWire.FLAG_FIXED_NEWSTYLE | NbdWire.FLAG_NO_ZEROES)).flip();
        while (greeting.hasRemaining()) {
            channel.write(greeting);
        }
    }

    /**
     * Runs the handshake after the {@link #greet greeting}: the result, or null if the client
     * aborted (NBD_OPT_ABORT).
     */
    Result negotiate() throws IOException {
        int clientFlags = read(4).getInt();
        if ((clientFlags & ~(NbdWire.CLIENT_FLAG_FIXED_NEWSTYLE | NbdWire.CLIENT_FLAG_NO_ZEROES)) != 0) {
            throw new ProtocolViolation("unknown client flags 0x" + Integer.toHexString(clientFlags));
        }
        boolean noZeroes = (clientFlags & NbdWire.CLIENT_FLAG_NO_ZEROES) != 0;

        for (int n = 0; n < limits.maxOptions(); n++) {
            ByteBuffer header = read(NbdWire.OPTION_HEADER_BYTES);
            long magic = header.getLong();
            int code = header.getInt();
            long length = Integer.toUnsignedLong(header.getInt());
            if (magic != NbdWire.OPTION_MAGIC) {
                throw new ProtocolViolation("bad option magic 0x" + Long.toHexString(magic));
            }
            if (length > MAX_OPTION_BYTES) {
                throw new ProtocolViolation("option " + code + " carries " + length + " bytes; at most "
                        + MAX_OPTION_BYTES + " accepted");
            }
            ByteBuffer data = read((int) length);
            NbdOption option = NbdOption.of(code);
            if (tlsFirst(option)) {
                if (option == NbdOption.EXPORT_NAME) {
                    throw new ProtocolViolation("NBD_OPT_EXPORT_NAME before TLS on a server that requires TLS");
                }
                reply(code, OptionReply.ERR_TLS_REQD, "this server requires TLS: send NBD_OPT_STARTTLS first "
                        + "(an nbds:// URI does)");
                continue;
            }
            if (option == null) {
                reply(code, OptionReply.ERR_UNSUP, "unknown option " + code);
                continue;
            }
            switch (option) {
                case EXPORT_NAME -> {
                    String name = string(data, data.remaining());
                    Optional<NbdExport> export = name == null ? Optional.empty() : exports.find(name);
                    if (export.isEmpty()) {
                        throw new ProtocolViolation("no export named '" + name + "' (NBD_OPT_EXPORT_NAME)");
                    }
                    NbdExport e = export.get();
                    Access access = e.access(client, transport.secure());
                    if (access != Access.ALLOWED) {
                        throw new ProtocolViolation("export '" + name + "' refused to "
                                + (client == null ? "a Unix-socket client" : client.getHostAddress()) + " (" + access + ", NBD_OPT_EXPORT_NAME cannot carry an error)");
                    }
                    Result chosen = result(e);
                    if (!claim.test(chosen)) {
                        throw new ProtocolViolation("export '" + name + "' was removed during the handshake "
                                + "(NBD_OPT_EXPORT_NAME cannot carry an error)");
                    }
                    room(8 + 2 + 124); // size, transmission flags, the zeroes a client without NO_ZEROES expects
                    out.putLong(e.device().sizeBytes()).putShort((short) transmissionFlags(e));
                    if (!noZeroes) {
                        out.put(new byte[124]);
                    }
                    flush();
                    return chosen;
                }
                case ABORT -> {
                    try {
                        reply(code, OptionReply.ACK);
                        flush();
                    } catch (IOException clientAlreadyGone) {
                        // The client may close without reading the ACK; the spec allows both.
                    }
                    return null;
                }
                case LIST -> list(code, data);
                case INFO, GO -> {
                    NbdExport chosen = info(code, data, option == NbdOption.GO);
                    if (chosen != null && option == NbdOption.GO) {
                        flush();
                        return result(chosen);
                    }
                }
                case STRUCTURED_REPLY -> {
                    if (data.hasRemaining()) {
                        reply(code, OptionReply.ERR_INVALID, "NBD_OPT_STRUCTURED_REPLY takes no data");
                    } else {
                        structuredReplies = true;
                        reply(code, OptionReply.ACK);
                    }
                }
                case STARTTLS -> startTls(code, data);
                case LIST_META_CONTEXT -> metaContext(code, false, data);
                case SET_META_CONTEXT -> metaContext(code, true, data);
                default -> reply(code, OptionReply.ERR_UNSUP, option + " is not supported");
            }
        }
        flush(); // the last option's replies, before the hard disconnect
        throw new ProtocolViolation("more than " + limits.maxOptions() + " options");
    }

    /** Meta contexts were selected for one export; choosing another leaves it with none (the spec's rule). */
    private Result result(NbdExport chosen) {
        return new Result(chosen, structuredReplies, chosen.name().equals(allocationContextFor), transport);
    }

    /**
     * NBD_OPT_LIST_META_CONTEXT and NBD_OPT_SET_META_CONTEXT. The one context is base:allocation;
     * LIST with no queries, or the query "base:", lists it; SET selects it when asked by its full
     * name, and every SET replaces the selection before it (also when it fails).
     */
    private void metaContext(int code, boolean set, ByteBuffer data) throws IOException {
        String what = set ? "NBD_OPT_SET_META_CONTEXT" : "NBD_OPT_LIST_META_CONTEXT";
        if (set) {
            allocationContextFor = null;
            if (!structuredReplies) {
                reply(code, OptionReply.ERR_INVALID, what + " needs structured replies (NBD_OPT_STRUCTURED_REPLY first)");
                return;
            }
        }
        if (data.remaining() < 8) {
            reply(code, OptionReply.ERR_INVALID, what + ": option data shorter than 8 bytes");
            return;
        }
        long nameLength = Integer.toUnsignedLong(data.getInt());
        if (nameLength > data.remaining() - 4) {
            reply(code, OptionReply.ERR_INVALID, what + ": export name longer than the option");
            return;
        }
        String name = string(data, (int) nameLength);
        long queries = Integer.toUnsignedLong(data.getInt());
        boolean matched = !set && queries == 0;
        for (long i = 0; i < queries; i++) {
            long length = data.remaining() < 4 ? -1 : Integer.toUnsignedLong(data.getInt());
            if (length < 0 || length > data.remaining()) {
                reply(code, OptionReply.ERR_INVALID, what + ": query " + i + " runs past the option's end");
                return;
            }
            String query = string(data, (int) length);
            if (query == null) {
                reply(code, OptionReply.ERR_INVALID, what + ": query " + i + " is not a valid string");
                return;
            }
            matched |= query.equals(NbdWire.BASE_ALLOCATION) || (!set && query.equals("base:"));
        }
        if (data.hasRemaining()) {
            reply(code, OptionReply.ERR_INVALID, what + ": " + data.remaining() + " bytes after the last query");
            return;
        }
        Optional<NbdExport> found = name == null ? Optional.empty() : exports.find(name);
        Access access = found.map(e -> e.access(client, transport.secure())).orElse(Access.ADDRESS_REFUSED);
        if (access == Access.ADDRESS_REFUSED) { // not for this client: as if it did not exist, as in NBD_OPT_LIST
            reply(code, OptionReply.ERR_UNKNOWN, "no export named '" + name + "'");
            return;
        }
        if (access == Access.TLS_REQUIRED) {
            reply(code, tls == null ? OptionReply.ERR_POLICY : OptionReply.ERR_TLS_REQD,
                    "export '" + name + "' is served over TLS only");
            return;
        }
        if (matched) {
            byte[] context = NbdWire.BASE_ALLOCATION.getBytes(StandardCharsets.US_ASCII);
            startReply(code, OptionReply.META_CONTEXT, 4 + context.length);
            out.putInt(NbdWire.BASE_ALLOCATION_ID).put(context);
            if (set) {
                allocationContextFor = name;
            }
        }
        reply(code, OptionReply.ACK);
    }

    /**
     * The flags an export advertises. CAN_MULTI_CONN holds because every connection to an export
     * submits to the same device and the server keeps no cache: a reply goes out only after the
     * bio completed on the device, and a FLUSH is a device flush, which covers every write that
     * completed before it was submitted, whichever connection sent it. SEND_CACHE is accepted and
     * answered at once: Blockwork's devices have no slower tier to prefetch from, so there is
     * nothing to do, and the reply promises nothing beyond that the range is valid.
     */
    static int transmissionFlags(NbdExport e) {
        EnumSet<TransmissionFlag> f = EnumSet.of(HAS_FLAGS, SEND_FLUSH, CAN_MULTI_CONN, SEND_CACHE);
        if (e.readOnly()) {
            f.add(READ_ONLY);
        } else {
            f.addAll(EnumSet.of(SEND_FUA, SEND_TRIM, SEND_WRITE_ZEROES));
        }
        return TransmissionFlag.encode(f);
    }

    /** NBD_OPT_STARTTLS: ACK, then the TLS handshake; from here on everything goes over TLS. */
    private void startTls(int code, ByteBuffer data) throws IOException {
        if (tls == null) {
            reply(code, OptionReply.ERR_UNSUP, "TLS is not configured on this server");
        } else if (transport.secure()) {
            reply(code, OptionReply.ERR_INVALID, "TLS is already running");
        } else if (data.hasRemaining()) {
            reply(code, OptionReply.ERR_INVALID, "NBD_OPT_STARTTLS takes no data");
        } else {
            reply(code, OptionReply.ACK);
            flush(); // in plain text, before the TLS handshake
            transport = TlsTransport.accept(channel, tls);
            structuredReplies = false; // nothing negotiated in plain text carries over into TLS
            allocationContextFor = null;
        }
    }

    private void list(int code, ByteBuffer data) throws IOException {
        if (data.hasRemaining()) {
            reply(code, OptionReply.ERR_INVALID, "NBD_OPT_LIST takes no data");
            return;
        }
        for (NbdExport e : exports.list()) {
            if (e.access(client, transport.secure()) != Access.ALLOWED) {
                continue; // not for this client, or not before TLS: not even its name
            }
            byte[] name = e.name().getBytes(StandardCharsets.UTF_8);
            byte[] description = e.description().getBytes(StandardCharsets.UTF_8);
            startReply(code, OptionReply.SERVER, 4 + name.length + description.length);
            out.putInt(name.length).put(name).put(description);
        }
        reply(code, OptionReply.ACK);
    }

    /** NBD_OPT_INFO and NBD_OPT_GO; returns the export if the reply ended in ACK. */
    private NbdExport info(int code, ByteBuffer data, boolean go) throws IOException {
        int length = data.remaining();
        if (length < 6) {
            reply(code, OptionReply.ERR_INVALID, "option data shorter than 6 bytes");
            return null;
        }
        long nameLength = Integer.toUnsignedLong(data.getInt());
        if (nameLength > length - 6) {
            reply(code, OptionReply.ERR_INVALID, "export name longer than the option");
            return null;
        }
        String name = string(data, (int) nameLength);
        int requests = Short.toUnsignedInt(data.getShort());
        if (length != 4 + nameLength + 2 + 2L * requests) {
            reply(code, OptionReply.ERR_INVALID, "information request count does not match the option length");
            return null;
        }
        Set<Integer> wanted = new HashSet<>();
        for (int i = 0; i < requests; i++) {
            wanted.add(Short.toUnsignedInt(data.getShort()));
        }
        Optional<NbdExport> found = name == null ? Optional.empty() : exports.find(name);
        if (found.isEmpty()) {
            reply(code, OptionReply.ERR_UNKNOWN, "no export named '" + name + "'");
            return null;
        }
        NbdExport e = found.get();
        switch (e.access(client, transport.secure())) {
            case ADDRESS_REFUSED -> {
                reply(code, OptionReply.ERR_POLICY, "export '" + name + "' does not accept clients from "
                        + (client == null ? "the Unix-domain socket" : client.getHostAddress()));
                return null;
            }
            case TLS_REQUIRED -> {
                if (tls == null) { // NOTLS mode must never answer TLS_REQD
                    reply(code, OptionReply.ERR_POLICY, "export '" + name + "' is served over TLS only, "
                            + "and this server has no TLS configured");
                } else {
                    reply(code, OptionReply.ERR_TLS_REQD, "export '" + name + "' is served over TLS only: "
                            + "send NBD_OPT_STARTTLS first (use an nbds:// URI)");
                }
                return null;
            }
            case ALLOWED -> { }
        }
        startReply(code, OptionReply.INFO, 12);
        out.putShort((short) NbdWire.INFO_EXPORT).putLong(e.device().sizeBytes()).putShort((short) transmissionFlags(e));
        // Always sent: the device cannot address less than its logical block.
        DeviceLimits dl = e.device().limits();
        startReply(code, OptionReply.INFO, 14);
        out.putShort((short) NbdWire.INFO_BLOCK_SIZE).putInt(dl.logicalBlockSize())
                .putInt(Math.max(4096, dl.physicalBlockSize())).putInt(limits.maxBlockBytes());
        if (wanted.contains(NbdWire.INFO_NAME)) {
            infoString(code, NbdWire.INFO_NAME, e.name());
        }
        if (wanted.contains(NbdWire.INFO_DESCRIPTION) && !e.description().isEmpty()) {
            infoString(code, NbdWire.INFO_DESCRIPTION, e.description());
        }
        if (go && !claim.test(result(e))) {
            reply(code, OptionReply.ERR_UNKNOWN, "export '" + name + "' was removed during the handshake");
            return null;
        }
        reply(code, OptionReply.ACK);
        return e;
    }

    private void infoString(int code, int type, String value) throws IOException {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        startReply(code, OptionReply.INFO, 2 + bytes.length);
        out.putShort((short) type).put(bytes);
    }

    private void reply(int code, OptionReply type) throws IOException {
        startReply(code, type, 0);
    }

    /** An error reply with a message for people, as the spec allows. */
    private void reply(int code, OptionReply type, String message) throws IOException {
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(bytes.length, NbdWire.MAX_STRING_BYTES);
        startReply(code, type, n);
        out.put(bytes, 0, n);
    }

    /**
     * Appends a reply's header; its {@code length} bytes of data follow. Replies collect in
     * {@link #out} and go out together when the server next reads or ends the handshake
     * ({@link #flush}): the INFO replies and the ACK that answer NBD_OPT_GO are one write, so the
     * client does not wake for the first part and wait for the rest.
     */
    private void startReply(int code, OptionReply type, int length) throws IOException {
        room(NbdWire.OPTION_REPLY_HEADER_BYTES + length);
        out.putLong(NbdWire.OPTION_REPLY_MAGIC).putInt(code).putInt(type.code()).putInt(length);
    }

    /** Makes room for {@code bytes} more in {@link #out}, sending what is there if need be. */
    private void room(int bytes) throws IOException {
        if (out.remaining() < bytes) {
            flush();
        }
    }

    /** Sends the replies collected so far. */
    private void flush() throws IOException {
        if (out.position() > 0) {
            out.flip();
            transport.writeFully(outArray, 1);
        }
        out.clear();
    }

    private ByteBuffer read(int n) throws IOException {
        flush(); // about to wait for the client: answer first
        ByteBuffer b = ByteBuffer.allocate(n);
        transport.readFully(b);
        return b.flip();
    }

    /** Decodes {@code n} bytes as strict UTF-8 without NUL; null if they are not a valid string. */
    private static String string(ByteBuffer data, int n) {
        ByteBuffer slice = data.slice(data.position(), n);
        data.position(data.position() + n);
        try {
            String s = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(slice).toString();
            return s.indexOf('\0') >= 0 ? null : s;
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
