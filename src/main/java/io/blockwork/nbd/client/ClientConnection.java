package io.blockwork.nbd.client;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdError;
import io.blockwork.nbd.protocol.NbdWire;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

/**
 * One NBD connection in the transmission phase: many requests in flight, replies matched by
 * cookie in whatever order the server sends them.
 *
 * <p>Threads: submitters write requests (header and payload in one gathering write) under
 * {@link #sendLock}, so requests are whole on the wire; one reader thread reads replies through a
 * staging buffer, fills READ buffers and completes the bios. A request belongs to whoever removes
 * it from {@link #pending}: the reader when its reply is done, or {@link #kill} when the
 * connection dies, which fails every request still in flight with an I/O error (so md marks the
 * member faulty and goes on with the other legs). Nothing is retried here: a retry after a
 * dropped connection could reorder a write against a later one.
 */
final class ClientConnection {

    private static final int STAGING_BYTES = 64 * 1024;
    /** Payloads at least this long are read straight into the bio's buffer. */
    private static final int DIRECT_READ_BYTES = 16 * 1024;

    private final SocketChannel channel;
    private final ExportInfo info;
    private final BiConsumer<ClientConnection, String> onDeath;
    private final ReentrantLock sendLock = new ReentrantLock();
    private final ByteBuffer header = ByteBuffer.allocateDirect(NbdWire.REQUEST_HEADER_BYTES);
    private final Map<Long, Request> pending = new ConcurrentHashMap<>();
    private final AtomicLong cookies = new AtomicLong();
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING_BYTES).flip();
    private final Thread reader;
    private volatile String deathReason;

    /** A request in flight; {@code error} is the first error a structured reply reported. */
    private static final class Request {
        final Bio bio;
        final long startNanos;
        IoStatus error;

        Request(Bio bio, long startNanos) {
            this.bio = bio;
            this.startNanos = startNanos;
        }
    }

    ClientConnection(SocketChannel channel, ExportInfo info, String threadName,
                     BiConsumer<ClientConnection, String> onDeath) {
        this.channel = channel;
        this.info = info;
        this.onDeath = onDeath;
        this.reader = Thread.ofPlatform().daemon().name(threadName).unstarted(this::readReplies);
    }

    void start() {
        reader.start();
    }

    boolean dead() {
        return deathReason != null;
    }

    int inFlight() {
        return pending.size();
    }

    /** System.nanoTime() of the oldest request in flight, or Long.MAX_VALUE if none. */
    long oldestStartNanos() {
        long oldest = Long.MAX_VALUE;
        for (Request r : pending.values()) {
            oldest = Math.min(oldest, r.startNanos);
        }
        return oldest;
    }

    /** Sends {@code bio} as {@code command}; {@code payload} is the WRITE data (else null). */
    void send(Bio bio, NbdCommand command, int flags, MemorySegment payload) {
        if (dead()) {
            bio.endio(IoStatus.IO_ERROR);
            return;
        }
        long cookie = cookies.incrementAndGet();
        pending.put(cookie, new Request(bio, System.nanoTime()));
        long length = command == NbdCommand.FLUSH ? 0 : bio.length();
        long offset = command == NbdCommand.FLUSH ? 0 : bio.offset();
        sendLock.lock();
        try {
            header.clear();
            header.putInt(NbdWire.REQUEST_MAGIC).putShort((short) flags).putShort((short) command.code())
                    .putLong(cookie).putLong(offset).putInt((int) length).flip();
            if (payload == null) {
                while (header.hasRemaining()) {
                    channel.write(header);
                }
            } else {
                ByteBuffer[] both = {header, payload.asByteBuffer()};
                while (both[1].hasRemaining()) {
                    channel.write(both);
                }
            }
        } catch (IOException | RuntimeException e) {
            kill("sending failed: " + describe(e));
        } finally {
            sendLock.unlock();
        }
        if (dead()) {
            // kill() may have run before this request was in the map's view of it; fail it here if so
            fail(cookie);
        }
    }

    /**
     * Ends the connection: the socket closes, every request in flight fails with an I/O error,
     * and the device hears why (once).
     */
    void kill(String reason) {
        synchronized (this) {
            if (deathReason != null) {
                return;
            }
            deathReason = reason;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // closing a broken socket: nothing more to do
        }
        // the device hears first, so whoever sees a request fail also sees the device disconnected
        onDeath.accept(this, reason);
        for (Long cookie : pending.keySet()) {
            fail(cookie);
        }
    }

    /** Sends NBD_CMD_DISC (best effort) and ends the connection. */
    void disconnect() {
        if (dead()) {
            return;
        }
        sendLock.lock();
        try {
            header.clear();
            header.putInt(NbdWire.REQUEST_MAGIC).putShort((short) 0).putShort((short) NbdCommand.DISC.code())
                    .putLong(0).putLong(0).putInt(0).flip();
            while (header.hasRemaining()) {
                channel.write(header);
            }
        } catch (IOException | RuntimeException e) {
            // the connection is going away anyway
        } finally {
            sendLock.unlock();
        }
        kill("closed by the client");
    }

    private void fail(long cookie) {
        Request r = pending.remove(cookie);
        if (r != null) {
            r.bio.endio(IoStatus.IO_ERROR);
        }
    }

    /* ---- the reader thread ---- */

    private void readReplies() {
        try {
            while (!dead()) {
                require(4);
                int magic = staging.getInt();
                if (magic == NbdWire.SIMPLE_REPLY_MAGIC) {
                    simpleReply();
                } else if (magic == NbdWire.STRUCTURED_REPLY_MAGIC && info.structuredReplies()) {
                    structuredReply();
                } else {
                    throw new IOException("bad reply magic 0x" + Integer.toHexString(magic));
                }
            }
        } catch (IOException | RuntimeException e) {
            kill(dead() ? deathReason : "the connection broke: " + describe(e));
        }
    }

    private void simpleReply() throws IOException {
        require(12);
        int error = staging.getInt();
        long cookie = staging.getLong();
        Request r = pending.get(cookie);
        if (r == null) {
            throw new IOException("a reply to unknown cookie " + cookie);
        }
        if (error == 0 && r.bio.op() == BioOp.READ) {
            fill(r.bio.data().asByteBuffer());
        }
        finish(cookie, error == 0 ? IoStatus.OK : status(error));
    }

    private void structuredReply() throws IOException {
        require(16);
        int flags = Short.toUnsignedInt(staging.getShort());
        int type = Short.toUnsignedInt(staging.getShort());
        long cookie = staging.getLong();
        long length = Integer.toUnsignedLong(staging.getInt());
        Request r = pending.get(cookie);
        if (r == null) {
            throw new IOException("a structured reply to unknown cookie " + cookie);
        }
        switch (type) {
            case NbdWire.REPLY_TYPE_NONE -> {
                if (length != 0) {
                    throw new IOException("NBD_REPLY_TYPE_NONE with a payload");
                }
            }
            case NbdWire.REPLY_TYPE_OFFSET_DATA -> {
                require(8);
                long offset = staging.getLong();
                ByteBuffer into = slice(r.bio, offset, length - 8);
                fill(into);
            }
            case NbdWire.REPLY_TYPE_OFFSET_HOLE -> {
                require(12);
                long offset = staging.getLong();
                long holeBytes = Integer.toUnsignedLong(staging.getInt());
                slice(r.bio, offset, holeBytes);
                r.bio.data().asSlice(offset - r.bio.offset(), holeBytes).fill((byte) 0);
            }
            case NbdWire.REPLY_TYPE_ERROR, NbdWire.REPLY_TYPE_ERROR_OFFSET -> {
                require(6);
                int error = staging.getInt();
                int messageBytes = Short.toUnsignedInt(staging.getShort());
                skip(length - 6);
                if (messageBytes > length - 6) {
                    throw new IOException("an error chunk whose message is longer than the chunk");
                }
                if (r.error == null) {
                    r.error = status(error);
                }
            }
            default -> {
                if ((type & (1 << 15)) != 0) {
                    skip(length);
                    if (r.error == null) {
                        r.error = IoStatus.IO_ERROR;
                    }
                } else {
                    throw new IOException("unknown structured reply type " + type);
                }
            }
        }
        if ((flags & NbdWire.REPLY_FLAG_DONE) != 0) {
            finish(cookie, r.error == null ? IoStatus.OK : r.error);
        }
    }

    private static ByteBuffer slice(Bio bio, long offset, long length) throws IOException {
        if (bio.op() != BioOp.READ || offset < bio.offset() || length < 0 || offset + length > bio.end()) {
            throw new IOException("reply data outside the request (" + offset + "+" + length + " for " + bio + ")");
        }
        return bio.data().asSlice(offset - bio.offset(), length).asByteBuffer();
    }

    private void finish(long cookie, IoStatus status) {
        Request r = pending.remove(cookie);
        if (r != null) {
            r.bio.endio(status);
        }
    }

    private static IoStatus status(int nbdError) {
        NbdError e = NbdError.of(nbdError);
        if (e == null) {
            return IoStatus.IO_ERROR;
        }
        return switch (e) {
            case EPERM -> IoStatus.READ_ONLY;
            case EINVAL, EOVERFLOW -> IoStatus.INVALID;
            case ENOSPC -> IoStatus.NO_SPACE;
            case ENOTSUP -> IoStatus.NOT_SUPPORTED;
            case EIO, ENOMEM, ESHUTDOWN -> IoStatus.IO_ERROR;
        };
    }

    /** Makes at least {@code n} (at most the staging size) unread bytes available in {@link #staging}. */
    private void require(int n) throws IOException {
        while (staging.remaining() < n) {
            staging.compact();
            int read = channel.read(staging);
            staging.flip();
            if (read < 0) {
                throw new EOFException("the server closed the connection");
            }
        }
    }

    /** Reads exactly {@code dst.remaining()} bytes into {@code dst}. */
    private void fill(ByteBuffer dst) throws IOException {
        if (staging.hasRemaining()) {
            int n = Math.min(staging.remaining(), dst.remaining());
            ByteBuffer part = staging.slice(staging.position(), n);
            dst.put(part);
            staging.position(staging.position() + n);
        }
        while (dst.hasRemaining()) {
            if (dst.remaining() >= DIRECT_READ_BYTES) {
                if (channel.read(dst) < 0) {
                    throw new EOFException("the server closed the connection");
                }
            } else {
                require(dst.remaining());
                int n = dst.remaining();
                dst.put(staging.slice(staging.position(), n));
                staging.position(staging.position() + n);
            }
        }
    }

    private void skip(long n) throws IOException {
        long left = n;
        while (left > 0) {
            int step = (int) Math.min(left, STAGING_BYTES);
            require(step);
            staging.position(staging.position() + step);
            left -= step;
        }
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
