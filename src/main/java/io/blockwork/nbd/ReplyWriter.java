package io.blockwork.nbd;

import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdWire;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.concurrent.LinkedTransferQueue;

/**
 * The one thread that writes a connection's replies. Completions arrive from any thread (the
 * reader when the device completes inline, the engine's timer or workers otherwise) and only
 * enqueue; the writer takes whatever has accumulated, encodes the headers into one buffer and
 * sends headers and READ payloads with a single gathering write. Under load many replies share a
 * system call; replies go out in completion order, matched to requests by handle.
 *
 * <p>After a write fails (the client went away, or the connection was dropped) the writer keeps
 * draining so that every request still gives back its buffer and budget, until {@link Pending#END}.
 */
final class ReplyWriter implements Runnable {

    private static final int MAX_BATCH = 64;
    /** Largest header: a structured error chunk with its message. */
    private static final int MAX_MESSAGE_BYTES = 200;
    private static final int MAX_HEADER_BYTES = NbdWire.STRUCTURED_REPLY_HEADER_BYTES + 6 + MAX_MESSAGE_BYTES;

    private final Connection connection;
    private final SocketChannel channel;
    private final boolean structured;
    private final LinkedTransferQueue<Pending> queue = new LinkedTransferQueue<>();

    ReplyWriter(Connection connection, SocketChannel channel, boolean structured) {
        this.connection = connection;
        this.channel = channel;
        this.structured = structured;
    }

    void enqueue(Pending p) {
        queue.add(p);
    }

    @Override
    public void run() {
        ByteBuffer headers = ByteBuffer.allocateDirect(MAX_BATCH * MAX_HEADER_BYTES);
        ByteBuffer[] iov = new ByteBuffer[2 * MAX_BATCH];
        ArrayList<Pending> batch = new ArrayList<>(MAX_BATCH);
        boolean broken = false;
        boolean end = false;
        while (!end) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                // Nobody interrupts the writer on purpose; keep draining until END.
                continue;
            }
            queue.drainTo(batch, MAX_BATCH - 1);
            headers.clear();
            int n = 0;
            for (Pending p : batch) {
                if (p == Pending.END) {
                    end = true;
                    continue;
                }
                int start = headers.position();
                boolean payload = encode(p, headers);
                iov[n++] = headers.slice(start, headers.position() - start);
                if (payload) {
                    iov[n++] = p.data.position(0);
                }
            }
            if (!broken && n > 0) {
                try {
                    writeAll(iov, n);
                } catch (IOException e) {
                    broken = true;
                    connection.writeFailed(e);
                }
            }
            for (Pending p : batch) {
                if (p != Pending.END) {
                    connection.replied(p, !broken);
                }
            }
            java.util.Arrays.fill(iov, 0, n, null);
            batch.clear();
        }
        connection.writerDone();
    }

    /** Encodes the reply's header; true if the READ payload follows it. */
    private boolean encode(Pending p, ByteBuffer h) {
        boolean read = p.command == NbdCommand.READ;
        if (p.error == null) {
            if (read && structured) {
                h.putInt(NbdWire.STRUCTURED_REPLY_MAGIC).putShort((short) NbdWire.REPLY_FLAG_DONE)
                        .putShort((short) NbdWire.REPLY_TYPE_OFFSET_DATA).putLong(p.handle)
                        .putInt(8 + p.data.limit()).putLong(p.offset);
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
        return java.util.Arrays.copyOf(b, cut);
    }

    private void writeAll(ByteBuffer[] iov, int n) throws IOException {
        int first = 0;
        while (first < n) {
            channel.write(iov, first, n - first);
            while (first < n && !iov[first].hasRemaining()) {
                first++;
            }
        }
    }
}
