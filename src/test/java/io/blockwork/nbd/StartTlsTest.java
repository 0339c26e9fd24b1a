package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.protocol.NbdOption;
import io.blockwork.nbd.protocol.NbdWire;
import io.blockwork.nbd.protocol.OptionReply;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NBD_OPT_STARTTLS and TLS-only exports, following the spec's NOTLS, SELECTIVETLS and FORCEDTLS
 * rules, driven by a raw client that upgrades its socket with the JDK's TLS.
 */
@Tag("unit")
class StartTlsTest {

    @TempDir
    static Path certs;
    private static TestCertificates tls;

    private final NbdFixture nbd = new NbdFixture();

    @BeforeAll
    static void certificates() {
        tls = TestCertificates.create(certs);
    }

    StartTlsTest() {
        nbd.export(NbdExport.of("open", Disk.memory("open", 4L << 20, DiskConfig.DEFAULT)));
        nbd.export(NbdExport.of("secret", Disk.memory("secret", 4L << 20, DiskConfig.DEFAULT)).requireTls(true));
    }

    @AfterEach
    void stop() {
        nbd.close();
        assertThat(nbd.server.status().failures()).as("unexpected server failures").isZero();
    }

    private void offerTls(boolean verifyClients, boolean requiredForAll) {
        nbd.server.useTls(new NbdTls(tls.serverContext(verifyClients), verifyClients, requiredForAll));
    }

    @Test
    void aTlsOnlyExportIsNeitherListedNorServedInPlainText() {
        offerTls(false, false);
        try (RawNbdClient c = nbd.raw().greet()) {
            assertThat(c.listNames()).containsExactly("open");
            assertThat(c.option(NbdOption.INFO, RawNbdClient.infoRequest("secret")).getLast().kind())
                    .isEqualTo(OptionReply.ERR_TLS_REQD);
            RawNbdClient.OptReply go = c.tryGo("secret").getLast();
            assertThat(go.kind()).isEqualTo(OptionReply.ERR_TLS_REQD);
            assertThat(go.text()).contains("STARTTLS");
            c.go("open"); // the other export is still served in plain text
            assertThat(c.flush(1).error()).isZero();
        }
        try (RawNbdClient c = nbd.raw().greet()) {
            c.sendOption(NbdOption.EXPORT_NAME.code(), "secret".getBytes(StandardCharsets.UTF_8));
            assertThat(c.closedByServer()).as("EXPORT_NAME cannot carry an error: hard disconnect").isTrue();
        }
    }

    @Test
    void afterStartTlsEverythingIsListedAndServedOverTls() {
        offerTls(false, false);
        try (RawNbdClient c = nbd.raw().greet()) {
            assertThat(c.startTls(TestCertificates.clientContext(tls.anonymousClientDir)).kind()).isEqualTo(OptionReply.ACK);
            assertThat(c.listNames()).containsExactly("open", "secret");
            c.negotiateStructuredReplies();
            c.go("secret");
            // the server files the client under its export just after it sent the ACK
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60))
                    .until(() -> nbd.server.clients("secret").size() == 1);
            assertThat(nbd.server.clients("secret")).singleElement().extracting(NbdClient::tls).isEqualTo(true);

            byte[] data = new byte[1 << 20]; // many TLS records each way
            new Random(7).nextBytes(data);
            assertThat(c.write(1, 0, data, NbdWire.CMD_FLAG_FUA).error()).isZero();
            for (long h = 2; h < 34; h++) { // pipelined: 32 reads in flight
                c.send(io.blockwork.nbd.protocol.NbdCommand.READ, 0, h, (h - 2) * 32768, 32768, null);
            }
            for (int i = 0; i < 32; i++) {
                RawNbdClient.Reply r = c.reply();
                assertThat(r.error()).isZero();
                int at = (int) (r.handle() - 2) * 32768;
                assertThat(r.data()).isEqualTo(java.util.Arrays.copyOfRange(data, at, at + 32768));
            }
            c.disconnect();
            assertThat(c.closedAfterDraining()).isTrue();
        }
    }

    @Test
    void whatWasNegotiatedInPlainTextDoesNotCarryOverIntoTls() {
        offerTls(false, false);
        try (RawNbdClient c = nbd.raw().greet()) {
            c.negotiateStructuredReplies();
            assertThat(c.startTls(TestCertificates.clientContext(tls.anonymousClientDir)).kind()).isEqualTo(OptionReply.ACK);
            c.go("open");
            // The raw client forgot structured replies too: a structured READ reply would fail it.
            RawNbdClient.Reply r = c.read(1, 0, 4096);
            assertThat(r.structured()).isFalse();
            assertThat(r.data()).hasSize(4096);
        }
    }

    @Test
    void startTlsTwiceOrWithDataIsInvalid() {
        offerTls(false, false);
        try (RawNbdClient c = nbd.raw().greet()) {
            assertThat(c.option(NbdOption.STARTTLS, new byte[1]).getLast().kind()).isEqualTo(OptionReply.ERR_INVALID);
            assertThat(c.startTls(TestCertificates.clientContext(tls.anonymousClientDir)).kind()).isEqualTo(OptionReply.ACK);
            assertThat(c.option(NbdOption.STARTTLS, new byte[0]).getLast().kind()).isEqualTo(OptionReply.ERR_INVALID);
            c.go("secret");
            assertThat(c.flush(1).error()).isZero();
        }
    }

    @Test
    void forcedTlsRefusesEveryOptionButStartTlsAndAbortUntilTlsIsUp() {
        offerTls(false, true);
        try (RawNbdClient c = nbd.raw().greet()) {
            for (NbdOption o : new NbdOption[] {NbdOption.LIST, NbdOption.STRUCTURED_REPLY, NbdOption.EXTENDED_HEADERS}) {
                assertThat(c.option(o, new byte[0]).getLast().kind()).as("%s", o).isEqualTo(OptionReply.ERR_TLS_REQD);
            }
            assertThat(c.option(99, new byte[3]).getLast().kind()).isEqualTo(OptionReply.ERR_TLS_REQD);
            assertThat(c.tryGo("open").getLast().kind()).isEqualTo(OptionReply.ERR_TLS_REQD);
            assertThat(c.startTls(TestCertificates.clientContext(tls.anonymousClientDir)).kind()).isEqualTo(OptionReply.ACK);
            assertThat(c.option(99, new byte[3]).getLast().kind()).isEqualTo(OptionReply.ERR_UNSUP);
            c.go("open");
            assertThat(c.read(1, 0, 512).error()).isZero();
        }
        try (RawNbdClient c = nbd.raw().greet()) {
            c.sendOption(NbdOption.EXPORT_NAME.code(), "open".getBytes(StandardCharsets.UTF_8));
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawNbdClient c = nbd.raw().greet()) {
            assertThat(c.option(NbdOption.ABORT, new byte[0]).getLast().kind()).isEqualTo(OptionReply.ACK);
        }
    }

    @Test
    void withClientVerificationOnlyClientsWithACertificateFromTheTrustedCaGetIn() {
        offerTls(true, false);
        try (RawNbdClient c = nbd.raw().greet()) {
            assertThat(c.startTls(TestCertificates.clientContext(tls.clientDir)).kind()).isEqualTo(OptionReply.ACK);
            c.go("secret");
            assertThat(c.flush(1).error()).isZero();
        }
        for (Path refused : new Path[] {tls.anonymousClientDir, tls.rogueClientDir}) {
            try (RawNbdClient c = nbd.raw().greet()) {
                // TLS 1.3: the client may finish its side before the server's verdict arrives; then
                // the next read fails instead.
                assertThatThrownBy(() -> {
                    c.startTls(TestCertificates.clientContext(refused));
                    c.listNames();
                }).as("client from %s", refused.getFileName()).isInstanceOf(RuntimeException.class);
            }
        }
        try (RawNbdClient c = nbd.open("open", false)) { // the server is fine
            assertThat(c.flush(1).error()).isZero();
        }
    }

    /**
     * Attacks on the TLS handshake itself: whatever follows the ACK to STARTTLS, garbage or
     * nothing at all, costs the server one dropped connection (the handshake timeout covers the
     * TLS handshake too), never a failure, and a healthy client is served throughout.
     */
    @Test
    void garbageOrSilenceInsteadOfATlsHandshakeEndsInADisconnect() throws InterruptedException {
        try (NbdFixture strict = new NbdFixture(NbdLimits.DEFAULT.withHandshakeTimeout(java.time.Duration.ofSeconds(2)))) {
            strict.export(NbdExport.of("open", Disk.memory("open", 4L << 20, DiskConfig.DEFAULT)));
            strict.server.useTls(new NbdTls(tls.serverContext(true), true, false));
            byte[] junk = new byte[4096];
            new Random(11).nextBytes(junk);
            // a TLS record header (handshake, TLS 1.2) announcing 16 KiB, then nothing more
            byte[] cutShort = {0x16, 0x03, 0x03, 0x40, 0x00, 0x01, 0x00};
            try (HealthyClient healthy = HealthyClient.on(strict, "open", 4L << 20)) {
                for (byte[] after : new byte[][] {junk, cutShort, new byte[0]}) {
                    try (RawNbdClient c = strict.raw().greet()) {
                        c.sendOption(NbdOption.STARTTLS.code(), new byte[0]);
                        assertThat(c.readOptionReply().kind()).isEqualTo(OptionReply.ACK);
                        c.sendBytes(after);
                        assertThat(c.closedAfterDraining()).as("after %d bytes", after.length).isTrue();
                    }
                    healthy.assertStillServed(after.length + " bytes instead of a TLS handshake");
                }
                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60))
                        .until(() -> strict.server.status().connections() == 1);
            }
            assertThat(strict.server.status().failures()).as("server failures").isZero();
        }
    }

    @Test
    void withoutTlsConfiguredStartTlsIsUnsupportedAndATlsOnlyExportIsRefusedByPolicy() {
        try (RawNbdClient c = nbd.raw().greet()) {
            assertThat(c.option(NbdOption.STARTTLS, new byte[0]).getLast().kind()).isEqualTo(OptionReply.ERR_UNSUP);
            assertThat(c.listNames()).containsExactly("open");
            // NOTLS mode must never answer NBD_REP_ERR_TLS_REQD
            RawNbdClient.OptReply go = c.tryGo("secret").getLast();
            assertThat(go.kind()).isEqualTo(OptionReply.ERR_POLICY);
            assertThat(go.text()).contains("no TLS configured");
        }
    }
}
