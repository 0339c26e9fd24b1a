package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.protocol.NbdOption;
import io.blockwork.nbd.protocol.OptionReply;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An export's allow-list of client addresses. Clients connect from different loopback addresses
 * (127.0.0.1 and 127.0.0.2 are both this machine on Linux).
 */
@Tag("unit")
class AllowListTest {

    private static final InetAddress HERE = InetAddress.ofLiteral("127.0.0.1");
    private static final InetAddress NEIGHBOUR = InetAddress.ofLiteral("127.0.0.2");

    private final NbdFixture nbd = new NbdFixture();

    AllowListTest() {
        nbd.export(NbdExport.of("public", Disk.memory("public", 1L << 20, DiskConfig.DEFAULT)));
        nbd.export(NbdExport.of("mine", Disk.memory("mine", 1L << 20, DiskConfig.DEFAULT))
                .allowClients(List.of(AddressRange.parse("127.0.0.1/32"), AddressRange.parse("::1"))));
        nbd.export(NbdExport.of("mine-tls", Disk.memory("mine-tls", 1L << 20, DiskConfig.DEFAULT))
                .allowClients(List.of(AddressRange.parse("127.0.0.1"))).requireTls(true));
    }

    @AfterEach
    void stop() {
        nbd.close();
    }

    @Test
    void aClientInTheListSeesAndUsesTheExport() {
        try (RawNbdClient c = RawNbdClient.connect(nbd.port(), HERE).greet()) {
            assertThat(c.listNames()).containsExactly("mine", "public"); // mine-tls needs TLS first
            c.go("mine");
            assertThat(c.write(1, 0, new byte[4096], 0).error()).isZero();
        }
    }

    @Test
    void aClientOutsideTheListNeitherSeesNorUsesIt() {
        try (RawNbdClient c = RawNbdClient.connect(nbd.port(), NEIGHBOUR).greet()) {
            assertThat(c.listNames()).containsExactly("public");
            RawNbdClient.OptReply info = c.option(NbdOption.INFO, RawNbdClient.infoRequest("mine")).getLast();
            assertThat(info.kind()).isEqualTo(OptionReply.ERR_POLICY);
            assertThat(info.text()).contains("does not accept clients from 127.0.0.2");
            // the address decides before TLS does: no hint to start TLS for an export it may not use
            assertThat(c.tryGo("mine-tls").getLast().kind()).isEqualTo(OptionReply.ERR_POLICY);
            c.go("public");
            assertThat(c.flush(1).error()).isZero();
        }
        try (RawNbdClient c = RawNbdClient.connect(nbd.port(), NEIGHBOUR).greet()) {
            c.sendOption(NbdOption.EXPORT_NAME.code(), "mine".getBytes(StandardCharsets.UTF_8));
            assertThat(c.closedByServer()).isTrue();
        }
    }
}
