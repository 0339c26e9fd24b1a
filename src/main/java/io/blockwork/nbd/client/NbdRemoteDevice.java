package io.blockwork.nbd.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdWire;
import io.blockwork.nbd.protocol.TransmissionFlag;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A block device whose blocks live on an NBD server: Blockwork's own export, nbdkit,
 * qemu-storage-daemon. Used as a disk of type {@code nbd}, e.g. the remote leg of a raid1.
 *
 * <p>Design notes.
 * <ul>
 *   <li><b>Failure is fast and visible.</b> A dropped connection, or a request unanswered for
 *       {@link NbdClientConfig#requestTimeout}, fails every request in flight with an I/O error;
 *       while disconnected every new request fails at once. md marks such a member faulty and
 *       serves from its other legs instead of hanging on an unreachable machine. Nothing is
 *       retried: a write resent after a reconnect could land after a later write to the same place.
 *   <li><b>Reconnects in the background</b>, from 100 ms doubling to 5 s between attempts, and
 *       checks that the export did not shrink. {@link #state} shows where it stands.
 *   <li><b>Several requests in flight</b> per connection ({@link ClientConnection}), and with
 *       {@code connections > 1} round-robin over several, but only if the server offers
 *       CAN_MULTI_CONN (which promises that a FLUSH on one covers writes answered on any).
 *   <li><b>FLUSH, FUA and TRIM pass through</b> when the server offers them. A server without
 *       SEND_FLUSH has no volatile cache to flush, so FLUSH completes at once; FUA without SEND_FUA
 *       is a write followed by a FLUSH; WRITE_ZEROES without SEND_WRITE_ZEROES writes zeros.
 * </ul>
 * NBD carries no credentials: use it on loopback or a private network (docs/guide/remote-disks.md).
 *
 * <p>Size note: over 400 lines because the I/O path's flag emulation, connecting with its
 * bounded handshake, and the failure/reconnect state machine share the device's state and lock.
 */
public final class NbdRemoteDevice extends AbstractBlockDevice implements AutoCloseable {

    private static final ClientConnection[] NONE = {};
    private static final long MAX_IO = 1L << 20;
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    /** Timeouts, watchdogs and reconnect scheduling of every remote device; its tasks never block. */
    private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("nbd-client-timers").factory());

    private final NbdClientConfig config;
    private final long sizeBytes;
    private final DeviceLimits limits;
    private final AtomicInteger nextConnection = new AtomicInteger();
    private final AtomicLong reconnects = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong connectionNumbers = new AtomicLong();
    private final Object lock = new Object();
    private final ScheduledFuture<?> watchdog;

    /** The connections I/O goes to; empty while disconnected. Written under {@link #lock}. */
    private volatile ClientConnection[] live = NONE;
    private volatile ConnectionState state = ConnectionState.CONNECTING;
    private volatile ExportInfo info;
    private volatile String lastError;
    @GuardedBy("lock")
    private boolean closed;
    @GuardedBy("lock")
    private Duration backoff = FIRST_BACKOFF;
    @GuardedBy("lock")
    private boolean reconnectScheduled;

    private NbdRemoteDevice(String name, NbdClientConfig config, long sizeBytes) {
        super(name);
        this.config = config;
        this.sizeBytes = sizeBytes;
        this.limits = DeviceLimits.of(config.logicalBlockSize()).withMaxIo(MAX_IO);
        long period = Math.max(50, Math.min(1000, config.requestTimeout().toMillis() / 4));
        this.watchdog = TIMERS.scheduleWithFixedDelay(this::checkTimeouts, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * Connects now and takes the export's size (rounded down to the block size): for a new disk,
     * where an unreachable server or a refused export must be an error.
     */
    public static NbdRemoteDevice connect(String name, NbdClientConfig config) throws IOException {
        Opened first = open(config, name, -1);
        long size = first.info().sizeBytes() / config.logicalBlockSize() * config.logicalBlockSize();
        if (size == 0) {
            first.close();
            throw new IOException("the export is smaller than one block (" + first.info().sizeBytes() + " bytes)");
        }
        NbdRemoteDevice device = new NbdRemoteDevice(name, config, size);
        device.install(first);
        return device;
    }

    /**
     * A device of a known size that connects in the background: assembly at start-up, where the
     * server may be down and the disk must exist anyway (failing I/O until it connects).
     */
    public static NbdRemoteDevice reopen(String name, NbdClientConfig config, long sizeBytes) {
        NbdRemoteDevice device = new NbdRemoteDevice(name, config, sizeBytes);
        synchronized (device.lock) {
            device.scheduleReconnect(Duration.ZERO);
        }
        return device;
    }

    @Override
    public long sizeBytes() {
        return sizeBytes;
    }

    @Override
    public DeviceLimits limits() {
        return limits;
    }

    public NbdClientConfig config() {
        return config;
    }

    /** What a person wants to see about the link. */
    public record Status(ConnectionState state, int connections, String lastError, long reconnects, long timeouts,
                         long inFlight, ExportInfo export) {}

    public Status status() {
        ClientConnection[] c = live;
        long inFlight = 0;
        for (ClientConnection x : c) {
            inFlight += x.inFlight();
        }
        return new Status(state, c.length, lastError, reconnects.get(), timeouts.get(), inFlight, info);
    }

    public ConnectionState state() {
        return state;
    }

    /* ---- the I/O path ---- */

    @Override
    protected void dispatch(Bio bio) {
        ClientConnection[] c = live;
        ExportInfo i = info;
        if (c.length == 0 || i == null) {
            bio.endio(IoStatus.IO_ERROR);
            return;
        }
        ClientConnection conn = c.length == 1 ? c[0] : c[Math.floorMod(nextConnection.getAndIncrement(), c.length)];
        if (bio.op().isWrite() && i.readOnly()) {
            bio.endio(IoStatus.READ_ONLY);
            return;
        }
        int fua = bio.fua() && i.has(TransmissionFlag.SEND_FUA) ? NbdWire.CMD_FLAG_FUA : 0;
        switch (bio.op()) {
            case READ -> conn.send(bio, NbdCommand.READ, 0, null);
            case WRITE -> {
                if (bio.fua() && fua == 0 && i.has(TransmissionFlag.SEND_FLUSH)) {
                    writeThenFlush(conn, bio, bio.data());
                } else {
                    conn.send(bio, NbdCommand.WRITE, fua, bio.data());
                }
            }
            case FLUSH -> {
                if (i.has(TransmissionFlag.SEND_FLUSH)) {
                    conn.send(bio, NbdCommand.FLUSH, 0, null);
                } else {
                    bio.endio(IoStatus.OK);
                }
            }
            case DISCARD -> {
                if (i.has(TransmissionFlag.SEND_TRIM)) {
                    conn.send(bio, NbdCommand.TRIM, fua, null);
                } else {
                    bio.endio(IoStatus.NOT_SUPPORTED);
                }
            }
            case WRITE_ZEROES -> {
                if (i.has(TransmissionFlag.SEND_WRITE_ZEROES)) {
                    conn.send(bio, NbdCommand.WRITE_ZEROES, fua, null);
                } else {
                    MemorySegment zeros = Arena.ofAuto().allocate(bio.length(), 4096);
                    Bio write = Bio.of(BioOp.WRITE, bio.offset(), bio.length(), BioFlags.NONE, zeros,
                            w -> bio.endio(w.status()));
                    if (bio.fua() && i.has(TransmissionFlag.SEND_FLUSH)) {
                        writeThenFlush(conn, write, zeros);
                    } else {
                        conn.send(write, NbdCommand.WRITE, fua, zeros);
                    }
                }
            }
        }
    }

    /** FUA for a server without SEND_FUA: the write, then a FLUSH; {@code bio} completes after both. */
    private static void writeThenFlush(ClientConnection conn, Bio bio, MemorySegment data) {
        Bio write = Bio.of(BioOp.WRITE, bio.offset(), bio.length(), BioFlags.NONE, data, w -> {
            if (!w.status().ok()) {
                bio.endio(w.status());
                return;
            }
            conn.send(Bio.flush(f -> bio.endio(f.status())), NbdCommand.FLUSH, 0, null);
        });
        conn.send(write, NbdCommand.WRITE, 0, data);
    }

    /* ---- connecting ---- */

    private record Opened(ExportInfo info, List<SocketChannel> channels) {
        void close() {
            for (SocketChannel c : channels) {
                try {
                    c.close();
                } catch (IOException e) {
                    // already broken
                }
            }
        }
    }

    /** Opens the configured connections and negotiates each; {@code expectedSize} -1 if not known yet. */
    private static Opened open(NbdClientConfig config, String name, long expectedSize) throws IOException {
        List<SocketChannel> channels = new ArrayList<>();
        try {
            SocketChannel first = channel(config);
            channels.add(first);
            ExportInfo info = negotiate(first, config);
            check(info, config, name, expectedSize);
            int n = config.connections() > 1 && info.has(TransmissionFlag.CAN_MULTI_CONN) ? config.connections() : 1;
            for (int k = 1; k < n; k++) {
                SocketChannel more = channel(config);
                channels.add(more);
                negotiate(more, config);
            }
            return new Opened(info, channels);
        } catch (IOException | RuntimeException e) {
            new Opened(null, channels).close();
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    private static SocketChannel channel(NbdClientConfig config) throws IOException {
        NbdUri uri = config.uri();
        if (uri.socketPath() != null) {
            SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                c.connect(uri.address());
            } catch (IOException e) {
                c.close();
                throw new IOException("cannot connect to " + uri.socketPath() + ": " + e.getMessage(), e);
            }
            return c;
        }
        SocketChannel c = SocketChannel.open();
        try {
            c.socket().connect(uri.address(), (int) Math.min(Integer.MAX_VALUE, config.requestTimeout().toMillis()));
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
        } catch (IOException e) {
            c.close();
            throw new IOException("cannot connect to " + uri.host() + ":" + uri.port() + ": " + e.getMessage(), e);
        }
        return c;
    }

    /** The handshake, bounded by the request timeout (the channel is closed if it takes longer). */
    private static ExportInfo negotiate(SocketChannel channel, NbdClientConfig config) throws IOException {
        ScheduledFuture<?> deadline = TIMERS.schedule(() -> {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing more to do
            }
        }, config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
        try {
            return ClientHandshake.negotiate(channel, config.uri().exportName());
        } catch (IOException e) {
            throw channel.isOpen() ? e : new IOException("the handshake took longer than " + config.requestTimeout(), e);
        } finally {
            deadline.cancel(false);
        }
    }

    private static void check(ExportInfo info, NbdClientConfig config, String name, long expectedSize) throws IOException {
        if (info.minimumBlock() > config.logicalBlockSize()) {
            throw new IOException("the server's minimum block size " + info.minimumBlock()
                    + " is larger than the disk's logical block size " + config.logicalBlockSize());
        }
        if (info.maximumBlock() < MAX_IO) {
            throw new IOException("the server's maximum block size " + info.maximumBlock() + " is below " + MAX_IO);
        }
        if (expectedSize >= 0 && info.sizeBytes() < expectedSize) {
            throw new IOException("export of " + name + " is now " + info.sizeBytes() + " bytes, smaller than the disk's "
                    + expectedSize);
        }
    }

    /** Makes {@code opened} the live connections, starting their readers. */
    private void install(Opened opened) {
        List<ClientConnection> made = new ArrayList<>();
        for (SocketChannel ch : opened.channels()) {
            made.add(new ClientConnection(ch, opened.info(), "nbd-client-" + name() + "-" + connectionNumbers.incrementAndGet(),
                    this::connectionDied));
        }
        made.forEach(ClientConnection::start);
        boolean refused;
        synchronized (lock) {
            refused = closed;
            if (!refused) {
                info = opened.info();
                live = made.toArray(NONE);
                state = ConnectionState.CONNECTED;
                backoff = FIRST_BACKOFF;
            }
        }
        if (refused) {
            made.forEach(ClientConnection::disconnect);
        }
    }

    private void connectionDied(ClientConnection dead, String reason) {
        ClientConnection[] others;
        synchronized (lock) {
            ClientConnection[] c = live;
            boolean current = false;
            for (ClientConnection x : c) {
                current |= x == dead;
            }
            if (!current || closed) {
                return;
            }
            live = NONE;
            others = c;
            state = ConnectionState.DISCONNECTED;
            lastError = reason;
            scheduleReconnect(FIRST_BACKOFF);
        }
        for (ClientConnection x : others) {
            if (x != dead) {
                x.kill("another connection of the device failed: " + reason);
            }
        }
    }

    @GuardedBy("lock")
    private void scheduleReconnect(Duration delay) {
        if (closed || reconnectScheduled) {
            return;
        }
        reconnectScheduled = true;
        TIMERS.schedule(() -> Thread.ofVirtual().name("nbd-reconnect-" + name()).start(this::reconnect),
                delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void reconnect() {
        synchronized (lock) {
            reconnectScheduled = false;
            if (closed) {
                return;
            }
            if (state != ConnectionState.CONNECTING) {
                state = ConnectionState.CONNECTING;
            }
        }
        try {
            Opened opened = open(config, name(), sizeBytes);
            boolean first = info == null;
            install(opened);
            if (!first) {
                reconnects.incrementAndGet();
            }
        } catch (IOException e) {
            synchronized (lock) {
                lastError = e.getMessage();
                state = ConnectionState.DISCONNECTED;
                Duration wait = backoff;
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
                scheduleReconnect(wait);
            }
        }
    }

    private void checkTimeouts() {
        long limit = config.requestTimeout().toNanos();
        long now = System.nanoTime();
        for (ClientConnection c : live) {
            long oldest = c.oldestStartNanos();
            if (oldest != Long.MAX_VALUE && now - oldest > limit) {
                timeouts.incrementAndGet();
                c.kill("a request got no reply within " + config.requestTimeout().toMillis() + " ms");
            }
        }
    }

    /** Disconnects (NBD_CMD_DISC) and stops reconnecting; I/O fails from now on. */
    @Override
    public void close() {
        ClientConnection[] c;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            c = live;
            live = NONE;
            state = ConnectionState.CLOSED;
        }
        watchdog.cancel(false);
        for (ClientConnection x : c) {
            x.disconnect();
        }
    }
}
