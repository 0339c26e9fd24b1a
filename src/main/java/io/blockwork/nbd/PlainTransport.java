package io.blockwork.nbd;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** NBD straight over the TCP socket: the data path's buffers go to and from the kernel without copies. */
record PlainTransport(SocketChannel channel) implements Transport {

    @Override
    public int read(ByteBuffer into) throws IOException {
        return channel.read(into);
    }

    /**
     * Switches the socket to non-blocking for one read. A sender that writes meanwhile sees its
     * write take nothing and tries again (the senders loop until all is written); the switch
     * itself waits for a write in progress.
     */
    @Override
    public int readArrived(ByteBuffer into) throws IOException {
        channel.configureBlocking(false);
        try {
            return channel.read(into);
        } finally {
            channel.configureBlocking(true);
        }
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int count) throws IOException {
        return channel.write(sources, offset, count);
    }

    @Override
    public boolean secure() {
        return false;
    }
}
