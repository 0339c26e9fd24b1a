package io.blockwork.nbd;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An NBD server (fixed newstyle handshake) exporting Blockwork block devices to qemu, nbdkit's
 * and libnbd's tools, fio and the Linux nbd client.
 *
 * <pre>{@code
 * ExportTable exports = new ExportTable().add(NbdExport.of("vol0", device));
 * NbdServer server = new NbdServer(new InetSocketAddress("127.0.0.1", 10809), exports);
 * server.start();
 * ...
 * exports.remove("vol0");
 * server.disconnect("vol0");   // its clients go too
 * server.stop();
 * }</pre>
 *
 * Every connection gets a thread that reads requests and submits them to the device without
 * waiting, and a thread that writes replies as bios complete. They are platform threads: a
 * connection is busy when it is used at all, and the kernel waking a thread blocked in
 * {@code read} costs clearly less per request than a virtual thread's trip through the JDK's
 * poller and carrier pool. See {@code docs/engine/nbd.md} for the protocol coverage and the
 * measurements behind this design.
 *
 * <p>The address may be a Unix-domain socket path ({@link UnixDomainSocketAddress}), for clients
 * on the same machine ({@code nbd+unix:///NAME?socket=PATH}): the protocol is the same, without
 * TCP's per-packet work. A stale socket file left by a crash is replaced at start; the file is
 * removed at stop.
 */
public final class NbdServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(NbdServer.class.getName());
    /** How long {@link #disconnect} lets a client's requests in flight finish before dropping it. */
    public static final Duration DISCONNECT_GRACE = Duration.ofSeconds(5);

    private final SocketAddress address;
    private final ExportLookup exports;
    private final NbdLimits limits;
    private final Map<Long, Connection> connections = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile Listener clientListener = Listener.NONE;
    /** The listening socket while running, else null. */
    @GuardedBy("this")
    private ServerSocketChannel listener;
    @GuardedBy("this")
    private Thread acceptor;

    public NbdServer(SocketAddress address, ExportLookup exports) {
        this(address, exports, NbdLimits.DEFAULT);
    }

    /**
     * @param address where to listen: a TCP address (port 0 picks a free port, see {@link
     *     #localAddress()}) or a {@link UnixDomainSocketAddress}
     */
    public NbdServer(SocketAddress address, ExportLookup exports, NbdLimits limits) {
        this.address = Objects.requireNonNull(address, "address");
        this.exports = Objects.requireNonNull(exports, "exports");
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /** Binds and starts accepting clients; fails with the bind error if the address is taken. */
    public synchronized void start() {
        if (listener != null) {
            throw new IllegalStateException("NBD server already running on " + localAddress());
        }
        try {
            ServerSocketChannel ch;
            if (address instanceof UnixDomainSocketAddress unix) {
                Files.deleteIfExists(unix.getPath()); // a previous run's socket file: nobody listens on it
                ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            } else {
                ch = ServerSocketChannel.open();
                ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            }
            ch.bind(address, 128);
            listener = ch;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen for NBD on " + address + ": " + e.getMessage(), e);
        }
        ServerSocketChannel ch = listener;
        acceptor = Thread.ofVirtual().name("nbd-accept").start(() -> acceptLoop(ch));
        LOG.log(Level.INFO, () -> "NBD server listening on " + describeAddress());
    }

    private void acceptLoop(ServerSocketChannel ch) {
        while (true) {
            SocketChannel client;
            try {
                client = ch.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!ch.isOpen()) {
                    return;
                }
                LOG.log(Level.WARNING, "NBD accept failed", e);
                continue;
            }
            try {
                if (!(address instanceof UnixDomainSocketAddress)) {
                    client.setOption(StandardSocketOptions.TCP_NODELAY, true);
                }
                long id = ids.incrementAndGet();
                Connection c = new Connection(this, id, client, client.getRemoteAddress(), limits);
                connections.put(id, c);
                if (!ch.isOpen()) {
                    c.close(); // stop() closed the listener, then the connections it could see
                }
                Thread.ofPlatform().daemon().name("nbd-conn-" + id).start(c::run);
            } catch (IOException e) {
                LOG.log(Level.DEBUG, () -> "NBD client gone before it was served: " + e);
                closeQuietly(client);
            }
        }
    }

    /**
     * Stops listening and ends every connection: no more requests are read, those in flight are
     * answered, then the sockets close. Connections still open after {@code timeout} (a client
     * that does not read its replies) are dropped.
     */
    public void stop(Duration timeout) {
        Thread a;
        synchronized (this) {
            if (listener == null) {
                return;
            }
            closeQuietly(listener);
            listener = null;
            if (address instanceof UnixDomainSocketAddress unix) {
                try {
                    Files.deleteIfExists(unix.getPath());
                } catch (IOException e) {
                    LOG.log(Level.WARNING, () -> "cannot remove the NBD socket " + unix.getPath() + ": " + e);
                }
            }
            a = acceptor;
            acceptor = null;
        }
        connections.values().forEach(c -> c.shutdown(timeout));
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            a.join(timeout);
            // Connections end once their in-flight bios complete; forget() signals each one.
            synchronized (connections) {
                long left;
                while (!connections.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
                    connections.wait(Math.max(1, left / 1_000_000));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        connections.values().forEach(Connection::close);
        LOG.log(Level.INFO, "NBD server stopped");
    }

    public void stop() {
        stop(Duration.ofSeconds(5));
    }

    @Override
    public void close() {
        stop();
    }

    public synchronized boolean isRunning() {
        return listener != null;
    }

    /** The bound TCP address, with the real port when the server was created with port 0. */
    public synchronized InetSocketAddress localAddress() {
        if (!(boundAddress() instanceof InetSocketAddress inet)) {
            throw new IllegalStateException("NBD server listens on a Unix socket, " + address);
        }
        return inet;
    }

    /** The bound address: TCP, or the Unix socket's path. */
    public synchronized SocketAddress boundAddress() {
        if (listener == null) {
            throw new IllegalStateException("NBD server not running");
        }
        try {
            return listener.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String describeAddress() {
        return address instanceof UnixDomainSocketAddress unix ? "unix:" + unix.getPath() : String.valueOf(boundAddress());
    }

    public int port() {
        return localAddress().getPort();
    }

    /** Every connected client, including those still negotiating (export name null). */
    public List<NbdClient> clients() {
        return connections.values().stream().map(Connection::describe)
                .sorted(Comparator.comparingLong(NbdClient::id)).toList();
    }

    /** The clients using one export. */
    public List<NbdClient> clients(String exportName) {
        return clients().stream().filter(c -> exportName.equals(c.exportName())).toList();
    }

    /**
     * Disconnects every client of an export (call it after removing the export from the lookup,
     * so they cannot come back): their requests in flight are answered, then the sockets close,
     * at the latest after {@link #DISCONNECT_GRACE}. Returns how many clients there were.
     */
    public int disconnect(String exportName) {
        int n = 0;
        for (Connection c : connections.values()) {
            NbdExport e = c.export();
            if (e != null && e.name().equals(exportName)) {
                c.shutdown(DISCONNECT_GRACE);
                n++;
            }
        }
        return n;
    }

    public NbdLimits limits() {
        return limits;
    }

    /**
     * Who is told when a client starts using an export (its handshake chose one) and when it goes
     * away. Called on the connection's threads; must not block.
     */
    public interface Listener {
        Listener NONE = new Listener() {
            @Override
            public void connected(NbdClient client) { }

            @Override
            public void disconnected(NbdClient client) { }
        };

        void connected(NbdClient client);

        /** {@code client.requestsServed()} is its final count. */
        void disconnected(NbdClient client);
    }

    public void listener(Listener l) {
        this.clientListener = Objects.requireNonNull(l, "listener");
    }

    /** A connection finished its handshake on an export. */
    void attached(Connection c) {
        tell(l -> l.connected(c.describe()));
    }

    private void tell(java.util.function.Consumer<Listener> call) {
        try {
            call.accept(clientListener);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "NBD listener failed", e);
        }
    }

    ExportLookup exports() {
        return exports;
    }

    void forget(Connection c) {
        if (connections.remove(c.id()) != null && c.export() != null) {
            tell(l -> l.disconnected(c.describe()));
        }
        synchronized (connections) {
            connections.notifyAll();
        }
    }

    private static void closeQuietly(java.nio.channels.Channel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
