package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.protocol.NbdOption;
import io.blockwork.nbd.protocol.NbdWire;
import io.blockwork.nbd.protocol.OptionReply;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLContext;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.junit.jupiter.api.Tag;

/**
 * Issue 13 acceptance 4 (NBD): generated sequences of handshake options, valid and not, in plain
 * text and over TLS, each answered as the spec and the server's access rules say, against a model
 * of what the client has negotiated so far. After every sequence the server has no failure and no
 * connection left over. The server offers TLS (SELECTIVETLS) and has an open export, a TLS-only
 * one and one for another client address.
 */
@Tag("unit")
class NbdOptionSequenceTest {

    /** Options the server implements; 9 and 10 (meta contexts) are left out of this model (BlockStatusTest has them). */
    private static final Set<Integer> KNOWN = Set.of(1, 2, 3, 5, 6, 7, 8, 9, 10);
    private static Path certDir;
    private static SSLContext clientTls;
    private static NbdFixture nbd;

    @BeforeContainer
    static void server() throws IOException {
        certDir = Files.createTempDirectory("nbd-options-certs");
        TestCertificates certs = TestCertificates.create(certDir);
        clientTls = TestCertificates.clientContext(certs.anonymousClientDir);
        nbd = new NbdFixture();
        nbd.export("open", Disk.memory("open", 1 << 20, DiskConfig.DEFAULT));
        nbd.export(NbdExport.of("secret", Disk.memory("secret", 1 << 20, DiskConfig.DEFAULT)).requireTls(true));
        nbd.export(NbdExport.of("fenced", Disk.memory("fenced", 1 << 20, DiskConfig.DEFAULT))
                .allowClients(List.of(AddressRange.parse("127.0.0.2"))));
        nbd.server.useTls(new NbdTls(certs.serverContext(false), false, false));
    }

    @AfterContainer
    static void stop() throws IOException {
        nbd.close();
        try (var files = Files.walk(certDir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** One step of a generated handshake. */
    sealed interface Opt {
        record ListExports(boolean withData) implements Opt {}
        record Info(String name, boolean go) implements Opt {}
        record MalformedInfo(boolean go) implements Opt {}
        record StructuredReply(boolean withData) implements Opt {}
        record StartTls(boolean withData) implements Opt {}
        record Unsupported(int code, int dataLength) implements Opt {}
        record Abort() implements Opt {}
        record ExportName(String name) implements Opt {}
        record BadMagic() implements Opt {}
        record Oversized() implements Opt {}
    }

    /** What the client has negotiated so far. */
    private static final class Model {
        boolean tls;

        List<String> visible() {
            return tls ? List.of("open", "secret") : List.of("open");
        }

        OptionReply answerTo(String name) {
            return switch (name) {
                case "open" -> OptionReply.ACK;
                case "secret" -> tls ? OptionReply.ACK : OptionReply.ERR_TLS_REQD;
                case "fenced" -> OptionReply.ERR_POLICY;
                default -> OptionReply.ERR_UNKNOWN;
            };
        }
    }

    @Provide
    Arbitrary<List<Opt>> handshakes() {
        Arbitrary<String> names = Arbitraries.of("open", "secret", "fenced", "nope");
        Arbitrary<Opt> hagglers = Arbitraries.oneOf(
                Arbitraries.of(true, false).map(Opt.ListExports::new),
                names.flatMap(n -> Arbitraries.of(true, false).map(go -> new Opt.Info(n, go))),
                Arbitraries.of(true, false).map(Opt.MalformedInfo::new),
                Arbitraries.of(true, false).map(Opt.StructuredReply::new),
                Arbitraries.of(true, false, false).map(Opt.StartTls::new),
                Arbitraries.integers().between(0, 5000).filter(c -> !KNOWN.contains(c))
                        .flatMap(c -> Arbitraries.integers().between(0, 200).map(n -> new Opt.Unsupported(c, n))),
                Arbitraries.of(new Opt.Unsupported(11, 0), new Opt.Unsupported(11, 8),
                        new Opt.Unsupported(Integer.MIN_VALUE, 4)));
        Arbitrary<Opt> enders = Arbitraries.oneOf(Arbitraries.just(new Opt.Abort()), names.map(Opt.ExportName::new),
                Arbitraries.of(new Opt.BadMagic(), new Opt.Oversized()));
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(12, hagglers), net.jqwik.api.Tuple.of(1, enders))
                .list().ofMinSize(1).ofMaxSize(25);
    }

    @Property(tries = 100)
    void everyOptionGetsTheAnswerTheSpecAndTheExportsRulesGive(@ForAll("handshakes") List<Opt> options) {
        try (RawNbdClient c = nbd.raw().greet()) {
            Model m = new Model();
            for (Opt o : options) {
                if (!step(c, o, m)) {
                    break;
                }
            }
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> nbd.server.status().connections() == 0);
        NbdServerStatus s = nbd.server.status();
        assertThat(s.failures()).as("server failures").isZero();
        assertThat(s.bytesInFlight()).isZero();
    }

    /**
     * The must-fail twin: the same model catches a server that forgot its exports' access rules
     * (the same exports, none of them TLS-only or fenced), on steps a property run could generate.
     */
    @Example
    void aServerThatForgotItsAccessRulesIsCaught() {
        try (NbdFixture careless = new NbdFixture()) {
            for (String name : List.of("open", "secret", "fenced")) {
                careless.export(name, Disk.memory(name, 1 << 20, DiskConfig.DEFAULT));
            }
            for (Opt leak : List.of(new Opt.ListExports(false), new Opt.Info("fenced", false),
                    new Opt.Info("secret", true), new Opt.ExportName("secret"))) {
                try (RawNbdClient c = careless.raw().greet()) {
                    assertThatThrownBy(() -> step(c, leak, new Model())).as("%s", leak).isInstanceOf(AssertionError.class);
                }
            }
        }
    }

    /** Sends one option and checks the answer; false once the connection is over. */
    private static boolean step(RawNbdClient c, Opt o, Model m) {
        switch (o) {
            case Opt.ListExports l when l.withData() -> expect(c.option(NbdOption.LIST, new byte[1]), OptionReply.ERR_INVALID);
            case Opt.ListExports l -> assertThat(c.listNames()).containsExactlyElementsOf(m.visible());
            case Opt.Info i -> {
                OptionReply want = m.answerTo(i.name());
                List<RawNbdClient.OptReply> r = i.go() ? c.tryGo(i.name(), NbdWire.INFO_BLOCK_SIZE)
                        : c.option(NbdOption.INFO, RawNbdClient.infoRequest(i.name()));
                expect(r, want);
                if (want == OptionReply.ACK && i.go()) {
                    transmitOnce(c);
                    return false;
                }
            }
            case Opt.MalformedInfo i -> expect(c.option(i.go() ? NbdOption.GO : NbdOption.INFO,
                    new byte[] {0, 0, 0, 9, 0, 0}), OptionReply.ERR_INVALID);
            case Opt.StructuredReply s when s.withData() ->
                    expect(c.option(NbdOption.STRUCTURED_REPLY, new byte[2]), OptionReply.ERR_INVALID);
            case Opt.StructuredReply s -> c.negotiateStructuredReplies();
            case Opt.StartTls t when t.withData() || m.tls ->
                    expect(c.option(NbdOption.STARTTLS, new byte[t.withData() ? 3 : 0]), OptionReply.ERR_INVALID);
            case Opt.StartTls t -> {
                assertThat(c.startTls(clientTls).kind()).isEqualTo(OptionReply.ACK);
                m.tls = true;
            }
            case Opt.Unsupported u -> expect(c.option(u.code(), new byte[u.dataLength()]), OptionReply.ERR_UNSUP);
            case Opt.Abort a -> {
                expect(c.option(NbdOption.ABORT, new byte[0]), OptionReply.ACK);
                return false;
            }
            case Opt.ExportName e -> {
                c.sendOption(NbdOption.EXPORT_NAME.code(), e.name().getBytes(StandardCharsets.UTF_8));
                if (m.answerTo(e.name()) == OptionReply.ACK) {
                    c.readExportNameReply();
                    transmitOnce(c);
                } else {
                    assertThat(c.closedByServer()).as("EXPORT_NAME %s refused", e.name()).isTrue();
                }
                return false;
            }
            case Opt.BadMagic b -> {
                c.sendBytes(ByteBuffer.allocate(16).putLong(0x1122334455667788L).putInt(3).putInt(0).array());
                assertThat(c.closedByServer()).isTrue();
                return false;
            }
            case Opt.Oversized x -> {
                c.sendBytes(ByteBuffer.allocate(16).putLong(NbdWire.OPTION_MAGIC).putInt(3).putInt(1 << 20).array());
                assertThat(c.closedByServer()).isTrue();
                return false;
            }
        }
        return true;
    }

    private static void expect(List<RawNbdClient.OptReply> replies, OptionReply kind) {
        assertThat(replies.getLast().kind()).as("final reply: %s", replies.getLast().text()).isEqualTo(kind);
        if (kind.isError()) {
            assertThat(replies).hasSize(1);
        }
    }

    /** In transmission: one FLUSH is answered, then a clean disconnect. */
    private static void transmitOnce(RawNbdClient c) {
        RawNbdClient.Reply r = c.flush(42);
        assertThat(r.handle()).isEqualTo(42);
        assertThat(r.error()).isZero();
        c.disconnect();
        assertThat(c.closedAfterDraining()).isTrue();
    }
}
