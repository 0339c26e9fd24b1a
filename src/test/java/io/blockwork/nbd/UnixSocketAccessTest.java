package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Unix-domain socket's clients under the TCP server's rules: an allow-list admits them only if
 * it admits the loopback address, and they share the connection limit (and with it the memory
 * budget) with the TCP clients.
 */
@Tag("unit")
class UnixSocketAccessTest {

    @TempDir
    Path dir;

    private static NbdExport export(String... ranges) {
        return NbdExport.of("e", Disk.memory("e", 1L << 20, DiskConfig.DEFAULT))
                .allowClients(List.of(ranges).stream().map(AddressRange::parse).toList());
    }

    @Test
    void aUnixClientCountsAsLocalForAllowLists() {
        assertThat(export().access(null, false)).isEqualTo(NbdExport.Access.ALLOWED);
        assertThat(export("127.0.0.0/8").access(null, false)).isEqualTo(NbdExport.Access.ALLOWED);
        assertThat(export("::1").access(null, false)).isEqualTo(NbdExport.Access.ALLOWED);
        assertThat(export("192.0.2.0/24").access(null, false)).isEqualTo(NbdExport.Access.ADDRESS_REFUSED);
        assertThat(export("127.0.0.1").requireTls(true).access(null, false)).isEqualTo(NbdExport.Access.TLS_REQUIRED);
    }

    @Test
    void theUnixSocketSharesTheConnectionLimit() throws IOException {
        ExportTable exports = new ExportTable().add(export());
        Path socket = dir.resolve("nbd.sock");
        try (NbdServer tcp = new NbdServer(new InetSocketAddress("127.0.0.1", 0), exports,
                NbdLimits.DEFAULT.withMaxConnections(1));
             NbdServer unix = new NbdServer(UnixDomainSocketAddress.of(socket), tcp)) {
            tcp.start();
            unix.start();
            try (RawNbdClient first = RawNbdClient.connect(tcp.port())) {
                await().atMost(Duration.ofSeconds(30)).until(() -> tcp.status().connections() == 1);
                try (SocketChannel second = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    second.connect(UnixDomainSocketAddress.of(socket));
                    assertThat(second.read(ByteBuffer.allocate(64))).as("refused: the slot is taken").isEqualTo(-1);
                }
                assertThat(unix.status().refusedConnections()).isEqualTo(1);
                assertThat(tcp.status().with(unix.status()).connections()).isEqualTo(1);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> tcp.status().connections() == 0);
            try (SocketChannel again = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                again.connect(UnixDomainSocketAddress.of(socket));
                ByteBuffer greeting = ByteBuffer.allocate(8);
                while (greeting.hasRemaining() && again.read(greeting) >= 0) {
                    // the server's greeting: the freed slot admits a socket client
                }
                assertThat(greeting.flip().getLong()).isEqualTo(io.blockwork.nbd.protocol.NbdWire.INIT_MAGIC);
            }
        }
    }
}
