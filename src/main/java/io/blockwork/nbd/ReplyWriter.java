package io.blockwork.nbd;

import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdWire;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Sends a connection's replies. Two threads may send: the reader, for requests the device
 * completed inline while it was submitting them (it sends those itself, in a batch, before it
 * next waits for the socket), and the writer thread this class runs, for completions that arrive
 * on other threads (the engine's timer or workers), which only enqueue. Either way a batch of
 * replies is encoded into one header buffer and sent with a single gathering write of headers
 * and READ payloads; {@link #socketLock} keeps two batches from interleaving on the wire.
 *
 * <p>After a write fails (the client went away, or the connection was dropped) the replies are
 * still drained so that every request gives back its buffer and budget, until {@link Pending#END}.
 * The same holds if sending fails unexpectedly: the failure is reported, the connection dropped,
 * and the writer goes on draining.
 *
 * <p>{@link #progress} counts the writes that moved bytes, so the server's watchdog can tell a
 * client that reads its replies slowly (progress) from one that reads none (a write stuck).
 */
final class ReplyWriter implements Runnable {

    static final int MAX_BATCH = 64;
    /** Longest error message sent in a structured error chunk. */
    private static final int MAX_MESSAGE_BYTES = 200;
    private static final int MAX_HEADER_BYTES = NbdWire.STRUCTURED_REPLY_HEADER_BYTES + 6 + MAX_MESSAGE_BYTES;

    private final Connection connection;
    private final Transport transport;
    private final boolean structured;
    private final LinkedTransferQueue<Pending> queue = new LinkedTransferQueue<>();
    /** Guards the socket's sending side: one batch is written whole before the next starts. */
    private final ReentrantLock socketLock = new ReentrantLock();
    private volatile boolean broken;
    /** Writes that moved at least one byte; written under {@link #socketLock}, read by the watchdog. */
    private volatile long progress;

    /** Scratch space for encoding one batch; one per sending thread. */
    static final class Batch {
        final ArrayList<Pending> replies = new ArrayList<>(MAX_BATCH);
        final ByteBuffer headers = ByteBuffer.allocateDirect(MAX_BATCH * MAX_HEADER_BYTES);
        final ByteBuffer[] iov = new ByteBuffer[2 * MAX_BATCH];

        boolean isFull() {
            return replies.size() >= MAX_BATCH;
        }

        boolean isEmpty() {
            return replies.isEmpty();
        }
    }

    ReplyWriter(Connection connection, Transport transport, boolean structured) {
        this.connection = connection;
        this.transport = transport;
        this.structured = structured;
    }

    long progress() {
        return progress;
    }

    /** Whether a batch is being written now (possibly stuck on a client that does not read). */
    boolean writing() {
        return socketLock.isLocked();
    }

    /** Hands a reply to the writer thread. Any thread; never blocks. */
    void enqueue(Pending p) {
        queue.add(p);
    }

    @Override
    public void run() {
        Batch batch = new Batch();
        boolean end = false;
        while (!end) {
            Pending first;
            try {
                first = queue.take();
            } catch (InterruptedException e) {
                continue; // nobody interrupts the writer on purpose; it ends at END
            }
            batch.replies.add(first);
            queue.drainTo(batch.replies, MAX_BATCH - 1);
            end = batch.replies.remove(Pending.END);
            try {
                send(batch);
            } catch (RuntimeException | Error e) {
                broken = true;
                connection.writerFailed(e);
                for (Pending p : batch.replies) {
                    connection.replied(p, false);
                }
                batch.replies.clear();
            }
        }
        connection.writerDone();
    }

    /** Sends a batch of replies (blocking until written), then gives back their resources. */
    void send(Batch batch) {
        ByteBuffer headers = batch.headers.clear();
        ByteBuffer[] iov = batch.iov;
        int n = 0;
        // Headers with no payload between them go out as one slice: a batch of WRITE replies is
        // a single buffer, not one per reply.
        int run = 0;
        for (Pending p : batch.replies) {
            if (encode(p, headers)) {
                iov[n++] = headers.slice(run, headers.position() - run);
                iov[n++] = p.status != null ? p.status : p.data.buffer();
                run = headers.position();
            }
        }
        if (headers.position() > run) {
            iov[n++] = headers.slice(run, headers.position() - run);
        }
        boolean sent = false;
        if (n > 0 && !broken) {
            socketLock.lock();
            try {
                writeAll(iov, n);
                sent = true;
            } catch (IOException e) {
                broken = true;
                connection.writeFailed(e);
            } finally {
                socketLock.unlock();
            }
        }
        for (Pending p : batch.replies) {
            connection.replied(p, sent);
        }
        Arrays.fill(iov, 0, n, null);
        batch.replies.clear();
    }

    /** Encodes the reply's header; true if a payload (READ data, BLOCK_STATUS descriptors) follows it. */
    private boolean encode(Pending p, ByteBuffer h) {
        boolean read = p.command == NbdCommand.READ;
        if (p.error == null && p.status != null) {
            h.putInt(NbdWire.STRUCTURED_REPLY_MAGIC).putShort((short) NbdWire.REPLY_FLAG_DONE)
                    .putShort((short) NbdWire.REPLY_TYPE_BLOCK_STATUS).putLong(p.handle).putInt(p.status.remaining());
            return true;
        }
        if (p.error == null) {
            if (read && structured) {
                h.putInt(NbdWire.STRUCTURED_REPLY_MAGIC).putShort((short) NbdWire.REPLY_FLAG_DONE)
                        .putShort((short) NbdWire.REPLY_TYPE_OFFSET_DATA).putLong(p.handle)
                        .putInt(8 + p.data.length()).putLong(p.offset);
            } else {
                h.putInt(NbdWire.SIMPLE_REPLY_MAGIC).putInt(0).putLong(p.handle);
            }
            return read;
        }
        if (structured) {
            byte[] msg = message(p);
            h.putInt(NbdWire.STRUCTURED_REPLY_MAGIC).putShort((short) NbdWire.REPLY_FLAG_DONE)
                    .putShort((short) NbdWire.REPLY_TYPE_ERROR).putLong(p.handle)
                    .putInt(6 + msg.length).putInt(p.error.code()).putShort((short) msg.length).put(msg);
        } else {
            // A simple error reply to a READ carries no payload: the spec lets the server go on.
            h.putInt(NbdWire.SIMPLE_REPLY_MAGIC).putInt(p.error.code()).putLong(p.handle);
        }
        return false;
    }

    private static byte[] message(Pending p) {
        if (p.message == null) {
            return new byte[0];
        }
        byte[] b = p.message.getBytes(StandardCharsets.UTF_8);
        if (b.length <= MAX_MESSAGE_BYTES) {
            return b;
        }
        // Cut on a character boundary so the message stays valid UTF-8.
        int cut = MAX_MESSAGE_BYTES;
        while (cut > 0 && (b[cut] & 0xc0) == 0x80) {
            cut--;
        }
        return Arrays.copyOf(b, cut);
    }

    private void writeAll(ByteBuffer[] iov, int n) throws IOException {
        int first = 0;
        while (first < n) {
            if (transport.write(iov, first, n - first) > 0) {
                progress++; // only one sender at a time holds the socket lock
            }
            while (first < n && !iov[first].hasRemaining()) {
                first++;
            }
        }
    }
}
