package io.blockwork.nbd;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.IoTimer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

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
 * poller and carrier pool. They come from {@link ConnectionThreads}, which keeps the threads of
 * ended connections parked for a while, and the acceptor (a platform thread too) sends the
 * greeting itself: clients such as nbdcopy open new connections for every copy and wait for the
 * greeting and the first replies, so a connection starts without creating a thread. See {@code
 * docs/engine/nbd.md} for the protocol coverage and the measurements behind this design.
 *
 * <p>Staying up. Clients share one {@link MemoryBudget} under {@link NbdLimits}: at most
 * {@code maxConnections} at once, each with a reservation of its own and a
 * share of one pool, so request memory stays under {@link NbdLimits#memoryBound()} and a client
 * crowded out of the pool is still served. A watchdog drops clients that read none of their
 * replies for the reply timeout. When every slot is taken, a newcomer displaces the client that
 * has been negotiating longest, if for a tenth of the handshake timeout (sshd's MaxStartups idea:
 * real clients negotiate in milliseconds, so sockets that only hold a slot cannot keep everyone
 * out for the handshake timeout); clients that finished negotiating are never displaced, and
 * without such a straggler the newcomer is refused. An unexpected error in any server thread is
 * reported in {@link #status()} (and so in the service's health) and confined: a connection that fails is
 * dropped, and the accept loop, if it fails, starts again after a short back-off.
 *
 * <p>The address may be a Unix-domain socket path ({@link UnixDomainSocketAddress}), for clients
 * on the same machine ({@code nbd+unix:///NAME?socket=PATH}): the protocol is the same, without
 * TCP's per-packet work. A stale socket file left by a crash is replaced at start; the file is
 * removed at stop. A server made {@link #NbdServer(SocketAddress, NbdServer) beside another}
 * shares its exports, limits, connection count and memory budget (TLS is set on each).
 *
 * <p>Size note: a little over 400 lines because the server is the one place that sees every
 * connection's life (admission, limits, TLS, failures, the client listener, the status that health
 * reads); the protocol and per-connection work live in {@link Handshake} and {@link Connection}.
 */
public final class NbdServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(NbdServer.class.getName());
    /** How long {@link #disconnect} lets a client's requests in flight finish before dropping it. */
    public static final Duration DISCONNECT_GRACE = Duration.ofSeconds(5);
    private static final long MAX_ACCEPT_BACKOFF_NANOS = Duration.ofSeconds(5).toNanos();
    private static final long REFUSAL_LOG_INTERVAL_NANOS = Duration.ofSeconds(10).toNanos();

    /** Starts a server thread; tests swap it to make thread creation fail. */
    interface ThreadStarter {
        Thread start(String name, Runnable task, Thread.UncaughtExceptionHandler handler);
    }

    private final SocketAddress address;
    private final ExportLookup exports;
    private final NbdLimits limits;
    private final MemoryBudget budget;
    /**
     * Idle buffers of ended connections for the next ones (a client like nbdcopy connects anew
     * for every copy), at most one reservation's worth; shared with a server made beside this one,
     * whose status and stop leave them to this one's ({@code sparesOwned} false), so a combined
     * status counts them once. Closed when this server stops (started again, it works without them).
     */
    private final BufferPool spares;
    private final boolean sparesOwned;
    private final ThreadStarter threads;
    private final Map<Long, Connection> connections = new ConcurrentHashMap<>();
    /** Connection ids, shared with a server made beside this one. */
    private final AtomicLong ids;
    /** Clients admitted and not yet forgotten, here and on a server made beside this one. */
    private final AtomicInteger admitted;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong stalledDropped = new AtomicLong();
    private final AtomicLong acceptRestarts = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile NbdServerStatus.Failure lastFailure;
    private volatile NbdTls tls;
    /** Acceptor-confined: when a refusal was last logged. */
    private long lastRefusalLog = System.nanoTime() - REFUSAL_LOG_INTERVAL_NANOS;
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
        this(address, exports, limits, new ConnectionThreads());
    }

    NbdServer(SocketAddress address, ExportLookup exports, NbdLimits limits, ThreadStarter threads) {
        this(address, exports, limits, threads, new MemoryBudget(limits),
                new BufferPool(limits.maxBlockBytes(), limits.reservedBytesPerConnection()), true,
                new AtomicInteger(), new AtomicLong());
    }

    /**
     * A second listener for the same clients, e.g. a Unix-domain socket beside the TCP port: it
     * serves {@code beside}'s exports under its limits, and its clients count against the same
     * {@code maxConnections} and draw on the same memory budget, so the bound of {@link
     * NbdLimits#memoryBound()} holds for both together; client ids are unique across both.
     */
    public NbdServer(SocketAddress address, NbdServer beside) {
        this(address, beside.exports, beside.limits, beside.threads, beside.budget, beside.spares, false,
                beside.admitted, beside.ids);
    }

    private NbdServer(SocketAddress address, ExportLookup exports, NbdLimits limits, ThreadStarter threads,
                      MemoryBudget budget, BufferPool spares, boolean sparesOwned, AtomicInteger admitted,
                      AtomicLong ids) {
        this.address = Objects.requireNonNull(address, "address");
        this.exports = Objects.requireNonNull(exports, "exports");
        this.limits = Objects.requireNonNull(limits, "limits");
        this.threads = Objects.requireNonNull(threads, "threads");
        this.budget = Objects.requireNonNull(budget, "budget");
        this.spares = Objects.requireNonNull(spares, "spares");
        this.sparesOwned = sparesOwned;
        this.admitted = Objects.requireNonNull(admitted, "admitted");
        this.ids = Objects.requireNonNull(ids, "ids");
    }

    /**
     * Offers TLS (NBD_OPT_STARTTLS) from the next handshake on, or stops offering it with null.
     * Connections already on TLS keep theirs; call it again with a new context to rotate certificates.
     */
    public void useTls(NbdTls tls) {
        this.tls = tls;
    }

    NbdTls tls() {
        return tls;
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
        // A platform thread blocked in accept() is woken by the kernel directly; a virtual one
        // went through the JDK's poller and a carrier first, which a client waiting for its
        // greeting noticed (docs/engine/nbd.md, "Sparse copies").
        acceptor = Thread.ofPlatform().daemon().name("nbd-accept")
                .uncaughtExceptionHandler((t, e) -> failed(t.getName(), e)).start(() -> acceptLoop(ch));
        watch(ch);
        LOG.log(Level.INFO, () -> "NBD server listening on " + describeAddress());
    }

    /**
     * Accepts until the listener closes. A failure (the process out of file descriptors or
     * memory, a bug) is reported, and the loop starts again after a back-off that doubles up to
     * 5 s, so the port never sits in LISTEN with nobody accepting.
     */
    private void acceptLoop(ServerSocketChannel ch) {
        long backoff = 0;
        while (ch.isOpen()) {
            try {
                SocketChannel client = ch.accept();
                serve(client);
                backoff = 0;
            } catch (ClosedChannelException e) {
                return; // stop() closed the listener
            } catch (IOException | RuntimeException | Error e) {
                if (!ch.isOpen()) {
                    return;
                }
                failed("nbd-accept", e);
                acceptRestarts.incrementAndGet();
                backoff = Math.min(MAX_ACCEPT_BACKOFF_NANOS, Math.max(10_000_000L, 2 * backoff));
                LockSupport.parkNanos(backoff);
            }
        }
    }

    /** Admits a new client (or refuses it: too many connected) and starts its reader. */
    private void serve(SocketChannel client) {
        Connection c = null;
        try {
            if (admitted.incrementAndGet() > limits.maxConnections() && !displaceStraggler()) {
                admitted.decrementAndGet();
                refuse(client);
                return;
            }
            try {
                if (!(address instanceof UnixDomainSocketAddress)) {
                    client.setOption(StandardSocketOptions.TCP_NODELAY, true);
                }
                Handshake.greet(client); // at once: the client waits for it (see ConnectionThreads)
                long id = ids.incrementAndGet();
                c = new Connection(this, id, client, client.getRemoteAddress(), limits, budget.open(), spares);
            } finally {
                if (c == null) {
                    admitted.decrementAndGet(); // not admitted after all; forget() counts down the others
                }
            }
            connections.put(c.id(), c);
            if (!client.isOpen() || !isRunning()) {
                c.close(); // stop() closed the listener, then the connections it could see
            }
            threads.start("nbd-conn-" + c.id(), c::run, (t, e) -> failed(t.getName(), e));
        } catch (IOException e) {
            LOG.log(Level.DEBUG, () -> "NBD client gone before it was served: " + e);
            abandon(client, c);
        } catch (RuntimeException | Error e) {
            abandon(client, c);
            throw e;
        }
    }

    /**
     * Closes the connection that has been negotiating longest, if for a tenth of the handshake
     * timeout at least (3 s by default), so a newcomer takes its slot: it stays counted in
     * {@code admitted} until its reader has ended, so the count runs over the limit by the
     * stragglers being closed, which hold no buffers. True if one was displaced.
     */
    private boolean displaceStraggler() {
        long now = System.nanoTime();
        long grace = limits.handshakeTimeout().toNanos() / 10;
        Connection oldest = null;
        long longest = -1;
        for (Connection c : connections.values()) {
            long negotiating = c.negotiatingFor(now);
            if (negotiating >= grace && negotiating > longest) {
                oldest = c;
                longest = negotiating;
            }
        }
        if (oldest == null || !oldest.displace()) {
            return false;
        }
        Connection gone = oldest;
        LOG.log(Level.INFO, () -> gone + ": displaced by a newcomer (every slot taken, still negotiating after "
                + grace / 1_000_000 + " ms)");
        return true;
    }

    private void abandon(SocketChannel client, Connection c) {
        closeQuietly(client);
        if (c != null) {
            c.close();
            forget(c);
        }
    }

    private void refuse(SocketChannel client) {
        long n = refused.incrementAndGet();
        long now = System.nanoTime();
        if (now - lastRefusalLog >= REFUSAL_LOG_INTERVAL_NANOS) {
            lastRefusalLog = now;
            LOG.log(Level.WARNING, () -> "NBD client refused: " + limits.maxConnections()
                    + " clients are connected (the limit); " + n + " refused so far");
        }
        closeQuietly(client);
    }

    /** Once per period while {@code ch} is open: drops clients that read none of their replies. */
    private void watch(ServerSocketChannel ch) {
        long period = Math.clamp(limits.replyTimeout().toNanos() / 4, 10_000_000L, 1_000_000_000L);
        IoTimer.shared().schedule(period, () -> {
            if (!ch.isOpen()) {
                return;
            }
            try {
                long now = System.nanoTime();
                for (Connection c : connections.values()) {
                    if (c.stalled(now)) {
                        stalledDropped.incrementAndGet();
                        LOG.log(Level.INFO, () -> c + ": read none of its replies for " + limits.replyTimeout()
                                + "; disconnecting");
                        c.close();
                    }
                }
            } catch (RuntimeException | Error e) {
                failed("nbd-watchdog", e);
            } finally {
                watch(ch);
            }
        });
    }

    /**
     * An unexpected error in a server thread: counted, kept as the latest failure, logged with
     * its stack trace. The server stays unhealthy ({@link NbdServerStatus#healthy()}) until
     * restarted: after a bug or an OutOfMemoryError the process is not to be trusted blindly.
     */
    void failed(String where, Throwable e) {
        failures.incrementAndGet();
        lastFailure = new NbdServerStatus.Failure(Instant.now(), where, e.toString());
        LOG.log(Level.ERROR, "NBD server: unexpected failure in " + where, e);
    }

    /** Starts a connection's thread (platform, daemon) whose escaping errors are reported. */
    void startThread(String name, Runnable task) {
        threads.start(name, task, (t, e) -> failed(t.getName(), e));
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
        if (sparesOwned) {
            spares.close(); // frees them, and whatever connections still ending give back later
        }
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

    /** How the server is doing: connections, memory, refusals, and any unexpected failure. */
    public NbdServerStatus status() {
        boolean running;
        boolean accepting;
        synchronized (this) {
            running = listener != null;
            accepting = acceptor != null && acceptor.isAlive();
        }
        long inFlight = 0;
        long pooled = sparesOwned ? spares.idleBytes() : 0;
        int n = 0;
        for (Connection c : connections.values()) {
            inFlight += c.inFlightBytes();
            pooled += c.pooledBytes();
            n++;
        }
        return new NbdServerStatus(running, accepting, n, limits.maxConnections(), refused.get(),
                stalledDropped.get(), inFlight, budget.sharedInUse(), pooled, limits.memoryBound(),
                acceptRestarts.get(), failures.get(), lastFailure, tls != null);
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
        if (connections.remove(c.id()) == null) {
            return;
        }
        admitted.decrementAndGet();
        if (c.export() != null) {
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
