package io.blockwork.nbd;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoTimer;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdError;
import io.blockwork.nbd.protocol.NbdWire;
import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client connection.
 *
 * <p>Size note: over 400 lines because reading and submitting a request, the completion
 * callbacks, the budget and the shutdown count ({@link #outstanding}) share the reader's state,
 * and the ordering between them is the whole point (who may send a reply, when the last one has
 * gone, when buffers may be freed); split apart, that ordering would be spread over
 * package-private accessors. The protocol's pieces that need no such state live elsewhere: the
 * handshake ({@link Handshake}), every check a request must pass ({@link RequestCheck}), reply
 * encoding ({@link ReplyWriter}), BLOCK_STATUS's ({@link BlockStatus}), buffers
 * ({@link BufferPool}) and the budget ({@link MemoryBudget}).
 *
 * <p>Threading. A platform thread runs the handshake and then reads requests. It never waits for
 * a request to finish: it checks the request ({@link RequestCheck}: go ahead, an error reply or a
 * hard disconnect), takes a buffer, submits a bio and reads the next header. A bio the device completed inline (inside {@code submit}) leaves its reply in the
 * reader's own batch, which the reader sends before it next waits for the socket or the budget;
 * a bio completed on another thread hands its reply to the {@link ReplyWriter}'s thread. So
 * requests run concurrently and replies go out in completion order, matched by handle. Measured
 * against a design where every reply went through the writer thread, the inline batch saves a
 * thread hand-off per batch (docs/engine/nbd.md has the figures).
 *
 * <p>Memory. Each request holds budget bytes (its buffer's capacity plus a fixed overhead) from
 * the moment its header is read until its reply has been written, in the connection's account of
 * the server's {@link MemoryBudget}. When the account cannot give what the next request needs the
 * reader blocks, the client's requests back up in TCP, and memory stays under the limits of
 * {@link NbdLimits} whatever the client does. A client that reads none of its replies for
 * {@link NbdLimits#replyTimeout()} is dropped ({@link #stalled}), which gives its budget back.
 *
 * <p>Reading. Headers come through a staging buffer, so one system call can bring in many
 * requests. A small WRITE payload is read through the staging buffer too and moved once into the
 * bio's buffer; of a large one, whatever part arrived with its header is moved once and the rest
 * is read from the socket straight into the bio's buffer.
 *
 * <p>Shutdown. {@link #outstanding} counts the reader plus every request not yet handed to a
 * sender; whoever brings it to zero queues {@link Pending#END}, so every reply is sent (even after
 * NBD_CMD_DISC, as the spec requires) before the writer closes the socket. Then the connection's
 * buffers are freed and its account closed ({@link #writerDone}). A hard disconnect ({@link #close},
 * also what a failed reply write leads to) stops the reader at the next request: requests still
 * in the staging buffer are not served, since nobody would get their replies.
 *
 * <p>Failures. An exception this class does not expect (a bug here or in a device: anything but
 * the client's I/O errors and protocol violations) is reported to the server, which marks itself
 * failed ({@link NbdServer#status()}), and drops this connection only.
 */
final class Connection {

    private static final System.Logger LOG = System.getLogger(Connection.class.getName());
    static final int STAGING_BYTES = 64 << 10;
    /**
     * WRITE payloads up to this size are read through the staging buffer and moved once: the read
     * that completes one also brings in the requests behind it. Larger ones go straight from the
     * socket into the bio's buffer.
     */
    static final int SMALL_PAYLOAD_BYTES = 16 << 10;

    private final NbdServer server;
    private final long id;
    private final SocketChannel channel;
    /** The client's address: TCP, or a Unix-domain socket's (usually unnamed). */
    private final SocketAddress remote;
    private final Instant connectedAt = Instant.now();
    private final long connectedNanos = System.nanoTime();
    private final NbdLimits limits;
    private final MemoryBudget.Account budget;
    private final BufferPool pool;
    private final AtomicInteger outstanding = new AtomicInteger(1);
    private final AtomicLong served = new AtomicLong();
    private volatile NbdExport export;
    /**
     * The thread running {@link #run} while it runs, else null. Connection threads are pooled
     * ({@link ConnectionThreads}), so it is cleared before the thread can move on: a late
     * {@link #close} must not interrupt, and a late completion must not count as inline on, the
     * thread's next connection. Written and interrupted under {@code this}.
     */
    private volatile Thread reader;
    private volatile boolean closed;
    private volatile ReplyWriter writer;
    /** Reader-confined: replies to requests the device completed inline, sent before the reader waits. */
    private final ReplyWriter.Batch inline = new ReplyWriter.Batch();
    private BlockDevice device;
    private Transport transport;
    /** Reader-confined, set once the handshake chose an export. */
    private RequestCheck check;
    private ByteBuffer in;
    /** Watchdog-confined ({@link #stalled}): the writer's progress when last seen, and since when. */
    private long watchedProgress = -1;
    private long watchedSince;

    Connection(NbdServer server, long id, SocketChannel channel, SocketAddress remote, NbdLimits limits,
               MemoryBudget.Account budget, BufferPool spares) {
        this.server = server;
        this.id = id;
        this.channel = channel;
        this.remote = remote;
        this.limits = limits;
        this.budget = budget;
        this.pool = new BufferPool(limits.maxBlockBytes(), limits.reservedBytesPerConnection(), spares);
    }

    /* ---- Reader ---- */

    void run() {
        synchronized (this) {
            reader = Thread.currentThread();
        }
        IoTimer.shared().schedule(limits.handshakeTimeout().toNanos(), () -> {
            if (export == null && !closed) {
                LOG.log(Level.INFO, () -> this + ": handshake not finished in " + limits.handshakeTimeout());
                close();
            }
        });
        try (Arena staging = Arena.ofConfined()) {
            // null: a peer on the Unix-domain socket, which has no IP address (see NbdExport#access)
            InetAddress client = remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
            Handshake.Result r = new Handshake(channel, client, server.exports(), limits, server.tls(), this::claim)
                    .negotiate();
            if (r == null) {
                return;
            }
            device = r.export().device();
            check = new RequestCheck(r.export(), r.allocationContext(), limits);
            ReplyWriter w = new ReplyWriter(this, transport, r.structuredReplies());
            server.startThread("nbd-writer-" + id, w);
            writer = w;
            server.attached(this);
            transmit(staging);
        } catch (ProtocolViolation | TlsTransport.TlsFailure e) {
            LOG.log(Level.INFO, () -> this + ": disconnecting: " + e.getMessage());
            close();
        } catch (EOFException | ClosedChannelException e) {
            LOG.log(Level.DEBUG, () -> this + ": closed");
        } catch (IOException e) {
            LOG.log(Level.DEBUG, () -> this + ": " + e);
        } catch (InterruptedException e) {
            LOG.log(Level.DEBUG, () -> this + ": interrupted");
        } catch (RuntimeException | Error e) {
            close();
            server.failed(this + " reader", e);
        } finally {
            if (writer == null) {
                close();
                end();
            } else {
                sendInline();
                dropReference();
            }
            synchronized (this) {
                reader = null;
            }
        }
    }

    /**
     * The handshake chose an export and is about to send its last reply: from here the client is
     * listed under the export, so {@link NbdServer#disconnect} reaches it. The lookup is read again
     * after {@code export} is published: an export removed before that read is refused, and one
     * removed after it finds this connection when its disconnect walks the connections.
     */
    private boolean claim(Handshake.Result r) {
        transport = r.transport();
        synchronized (this) {
            if (closed) {
                return false; // displaced (its slot has gone to a newcomer) or dropped meanwhile
            }
            export = r.export();
        }
        if (server.exports().find(r.export().name()).orElse(null) == r.export()) {
            return true;
        }
        export = null;
        return false;
    }

    private void transmit(Arena staging) throws IOException, InterruptedException {
        in = staging.allocate(STAGING_BYTES).asByteBuffer().limit(0);
        // After a hard disconnect (closed) the requests already staged are not served: nobody would get their replies.
        while (!closed && fill(NbdWire.REQUEST_HEADER_BYTES)) {
            Request r = Request.read(in);
            if (r.command() == NbdCommand.DISC) {
                return; // answer what is in flight, then close; nothing after DISC is read
            }
            switch (check.check(r)) {
                case RequestCheck.Verdict.Drop d -> throw new ProtocolViolation(d.reason());
                case RequestCheck.Verdict.Refuse refusal -> refuse(r, refusal);
                case RequestCheck.Verdict.Serve s -> {
                    if (r.command() == NbdCommand.BLOCK_STATUS || r.command() == NbdCommand.CACHE) {
                        answerAtOnce(r);
                    } else {
                        start(r);
                    }
                }
            }
        }
    }

    /** Answers a request {@link RequestCheck} refused; a refused WRITE's payload is read and dropped. */
    private void refuse(Request r, RequestCheck.Verdict.Refuse refusal) throws IOException, InterruptedException {
        if (r.command() == NbdCommand.WRITE) {
            skip(r.length());
        }
        acquire(NbdLimits.REQUEST_OVERHEAD_BYTES);
        Pending p = new Pending(this, r.handle(), r.command(), r.offset(), NbdLimits.REQUEST_OVERHEAD_BYTES, null);
        outstanding.incrementAndGet();
        replyReady(p.fail(refusal.error(), refusal.message()));
    }

    /**
     * Requests answered without a bio, on the reader: CACHE (nothing to prefetch: the reply only
     * says the range was valid) and BLOCK_STATUS (the device's allocation query, which never
     * waits for I/O). Their replies join the inline batch.
     */
    private void answerAtOnce(Request r) throws InterruptedException {
        ByteBuffer status = r.command() == NbdCommand.BLOCK_STATUS
                ? BlockStatus.encode(device, r.offset(), r.length(), r.has(NbdWire.CMD_FLAG_REQ_ONE))
                : null;
        int charge = NbdLimits.REQUEST_OVERHEAD_BYTES + (status == null ? 0 : status.capacity());
        acquire(charge);
        Pending p = new Pending(this, r.handle(), r.command(), r.offset(), charge, null);
        p.status = status;
        outstanding.incrementAndGet();
        replyReady(p);
    }

    /**
     * A request that passed {@link RequestCheck}: take budget and a buffer, submit its bio. Only a
     * READ's or WRITE's length, held to the maximum payload, is a buffer's; TRIM's and
     * WRITE_ZEROES' may be up to 4 GiB.
     */
    private void start(Request r) throws IOException, InterruptedException {
        NbdCommand command = r.command();
        long offset = r.offset();
        boolean data = r.carriesData();
        int charge = NbdLimits.REQUEST_OVERHEAD_BYTES + (data ? BufferPool.capacityFor((int) r.length()) : 0);
        acquire(charge);
        BufferPool.Payload payload = data ? pool.take((int) r.length()) : null;
        Pending p = new Pending(this, r.handle(), command, offset, charge, payload);
        if (command == NbdCommand.WRITE) {
            readPayload(payload.buffer());
        }
        boolean fua = r.has(NbdWire.CMD_FLAG_FUA);
        Bio bio = switch (command) {
            case READ -> Bio.read(offset, payload.segment(), p);
            case WRITE -> Bio.write(offset, payload.segment(), fua ? BioFlags.FUA : BioFlags.NONE, p);
            case FLUSH -> Bio.flush(p);
            case TRIM -> Bio.of(BioOp.DISCARD, offset, r.length(), BioFlags.NONE, null, p);
            // NO_HOLE or not, zeroing is WRITE_ZEROES: the device decides how to provision it.
            case WRITE_ZEROES -> Bio.of(BioOp.WRITE_ZEROES, offset, r.length(), BioFlags.NONE, null, p);
            default -> throw new IllegalStateException("unchecked command " + command);
        };
        // FUA on a TRIM or WRITE_ZEROES is kept in one place: a device flush after it completes.
        p.flushAfter = fua && (command == NbdCommand.TRIM || command == NbdCommand.WRITE_ZEROES);
        outstanding.incrementAndGet();
        try {
            device.submit(bio);
        } catch (RuntimeException | Error e) {
            // A device must not throw; if one does, answer the request so its budget and buffer
            // come back and the connection can end, then let the reader fail (the server reports it).
            if (!p.answered) {
                replyReady(p.fail(NbdError.EIO, command + " failed inside the device: " + e));
            }
            throw e;
        }
        if (inline.isFull()) {
            sendInline();
        }
    }

    private void acquire(int bytes) throws InterruptedException {
        if (!budget.tryTake(bytes)) {
            budget.take(bytes, this::sendInline); // the replies in the reader's batch hold budget too
        }
    }

    private void sendInline() {
        if (!inline.isEmpty()) {
            writer.send(inline);
        }
    }

    /** Makes at least {@code need} bytes readable in the staging buffer; false at end of stream. */
    private boolean fill(int need) throws IOException {
        if (in.remaining() >= need) {
            return true;
        }
        sendInline(); // about to wait for the client: answer what is done first
        in.compact();
        try {
            while (in.position() < need) {
                if (transport.read(in) < 0) {
                    return false;
                }
            }
            return true;
        } finally {
            in.flip();
        }
    }

    private void readPayload(ByteBuffer into) throws IOException {
        if (into.limit() <= SMALL_PAYLOAD_BYTES && !fill(into.limit())) {
            throw new EOFException("client closed the connection inside a WRITE payload");
        }
        int staged = Math.min(in.remaining(), into.limit());
        into.put(0, in, in.position(), staged).position(staged);
        in.position(in.position() + staged);
        if (into.hasRemaining()) {
            sendInline();
            transport.readFully(into);
        }
    }

    /**
     * Reads and drops the payload of a refused WRITE. What is staged behind the payload (the next
     * requests, when the client pipelines) stays staged.
     */
    private void skip(long length) throws IOException {
        long left = length;
        int staged = (int) Math.min(in.remaining(), left);
        in.position(in.position() + staged);
        left -= staged;
        if (left == 0) {
            return;
        }
        while (left > 0) { // the staging buffer is empty: read only the payload's bytes into it
            in.clear().limit((int) Math.min(in.capacity(), left));
            int n = transport.read(in);
            if (n < 0) {
                throw new EOFException("client closed the connection inside a WRITE payload");
            }
            left -= n;
        }
        in.position(0).limit(0);
    }

    /* ---- Completion and the writer ---- */

    /**
     * A request is finished (bio completed or refused). On the reader (an inline completion) the
     * reply joins the reader's own batch; from any other thread it goes to the writer thread.
     */
    void replyReady(Pending p) {
        p.answered = true;
        if (Thread.currentThread() == reader && !inline.isFull()) {
            inline.replies.add(p); // a callback must not block: the reader sends these from its loop
        } else {
            writer.enqueue(p);
        }
        dropReference();
    }

    private void dropReference() {
        if (outstanding.decrementAndGet() == 0) {
            writer.enqueue(Pending.END);
        }
    }

    /** Called by the writer once a reply was sent, or dropped because the socket is gone. */
    void replied(Pending p, boolean sent) {
        if (p.released) {
            return; // a sender that failed half-way gives back the rest of its batch once more
        }
        p.released = true;
        if (p.data != null) {
            pool.give(p.data);
        }
        budget.give(p.charge);
        if (sent) {
            served.incrementAndGet();
        }
    }

    void writeFailed(IOException e) {
        if (!closed) {
            LOG.log(Level.DEBUG, () -> this + ": write failed: " + e);
        }
        close();
    }

    /** The writer failed unexpectedly (not an I/O error): report it and drop the connection. */
    void writerFailed(Throwable t) {
        close();
        server.failed(this + " writer", t);
    }

    /** Every reply is sent or dropped: say goodbye on TLS, close, give back memory and budget. */
    void writerDone() {
        if (!closed && transport instanceof TlsTransport tls) {
            IoTimer.shared().schedule(Duration.ofSeconds(2).toNanos(), this::close); // a peer not reading cannot hold it up
            tls.closeGracefully(); // close_notify, as the spec asks of a server ending a TLS session
        }
        close();
        end();
    }

    /** The connection is over: frees idle buffers, closes the account, leaves the server's table. */
    private void end() {
        pool.close();
        long leaked = budget.close();
        if (leaked != 0) {
            LOG.log(Level.WARNING, () -> this + ": " + leaked + " budget bytes were still held at the end; given back");
        }
        server.forget(this);
    }

    /**
     * The watchdog's question, once a second: has a reply write been stuck, with not one byte
     * taken by the client, for longer than the reply timeout?
     */
    boolean stalled(long now) {
        ReplyWriter w = writer;
        if (w == null) {
            return false;
        }
        long progress = w.progress();
        if (!w.writing() || progress != watchedProgress) {
            watchedProgress = progress;
            watchedSince = now;
            return false;
        }
        return now - watchedSince >= limits.replyTimeout().toNanos();
    }

    /**
     * Ends the connection politely: nothing more is read, requests in flight are answered, then
     * the socket closes (the spec's advice for a server going away). A client that does not read
     * its replies could hold that up, so the connection is dropped anyway after {@code grace}.
     */
    void shutdown(Duration grace) {
        try {
            channel.shutdownInput();
        } catch (IOException e) {
            close();
            return;
        }
        IoTimer.shared().schedule(grace.toNanos(), this::close);
    }

    /** Nanoseconds this client has been negotiating at {@code now}; -1 once it has an export or is closed. */
    long negotiatingFor(long now) {
        return export == null && !closed ? now - connectedNanos : -1;
    }

    /**
     * Closes this connection for a newcomer if it is still negotiating; false if it has finished
     * (claimed an export) or was closed meanwhile. Under the monitor {@link #claim} publishes the
     * export with, so a client is never displaced after it has been listed under an export.
     */
    boolean displace() {
        synchronized (this) {
            if (export != null || closed) {
                return false;
            }
            closed = true; // under the monitor, so claim() cannot publish an export after this
        }
        close();
        return true;
    }

    /** Drops the connection at once (hard disconnect); replies still in flight are discarded. */
    void close() {
        closed = true;
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing is best effort
        }
        synchronized (this) {
            Thread r = reader;
            if (r != null && r != Thread.currentThread()) {
                r.interrupt(); // may be waiting for budget
            }
        }
    }

    /* ---- Accessors ---- */

    BlockDevice device() {
        return device;
    }

    long id() {
        return id;
    }

    NbdExport export() {
        return export;
    }

    NbdClient describe() {
        NbdExport e = export;
        Transport t = transport;
        return new NbdClient(id, e == null ? null : e.name(), remote, connectedAt, served.get(), budget.held(),
                e != null && t.secure());
    }

    long inFlightBytes() {
        return budget.held();
    }

    /** Idle buffers kept for reuse. */
    long pooledBytes() {
        return pool.idleBytes();
    }

    @Override
    public String toString() {
        NbdExport e = export;
        return "nbd#" + id + "[" + remote + (e == null ? "" : " " + e.name()) + "]";
    }
}
