package io.blockwork.nbd;

import io.blockwork.engine.block.BlockDevice;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;

/** An in-process NBD server on a free loopback port (or a Unix socket) with an in-test export table. */
public final class NbdFixture implements AutoCloseable {

    public final ExportTable exports = new ExportTable();
    public final NbdServer server;
    /** The Unix-domain socket served, or null for TCP. */
    private final Path socket;

    public NbdFixture() {
        this(NbdLimits.DEFAULT);
    }

    public NbdFixture(NbdLimits limits) {
        socket = null;
        server = new NbdServer(new InetSocketAddress("127.0.0.1", 0), exports, limits);
        server.start();
    }

    /** A server on the Unix-domain socket {@code socket} instead of TCP. */
    public NbdFixture(Path socket) {
        this.socket = socket;
        server = new NbdServer(UnixDomainSocketAddress.of(socket), exports, NbdLimits.DEFAULT);
        server.start();
    }

    public NbdFixture export(String name, BlockDevice device) {
        exports.add(NbdExport.of(name, device));
        return this;
    }

    public NbdFixture export(NbdExport e) {
        exports.add(e);
        return this;
    }

    public int port() {
        return server.port();
    }

    /** The URI libnbd, qemu and fio understand. */
    public String uri(String exportName) {
        return socket != null ? "nbd+unix:///" + exportName + "?socket=" + socket
                : "nbd://127.0.0.1:" + port() + "/" + exportName;
    }

    /** A raw client that has sent the greeting and is ready for options. */
    public RawNbdClient raw() {
        return RawNbdClient.connect(port());
    }

    /** A raw client in transmission on {@code exportName}, with or without structured replies. */
    public RawNbdClient open(String exportName, boolean structured) {
        RawNbdClient c = raw().greet();
        if (structured) {
            c.negotiateStructuredReplies();
        }
        c.go(exportName);
        return c;
    }

    @Override
    public void close() {
        server.stop();
    }
}
