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

    @Override
    public long write(ByteBuffer[] sources, int offset, int count) throws IOException {
        return channel.write(sources, offset, count);
    }

    @Override
    public boolean secure() {
        return false;
    }
}
