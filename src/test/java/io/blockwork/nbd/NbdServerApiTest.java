package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.RecordingDevice;
import io.blockwork.engine.disk.Disk;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.engine.disk.DiskConfig;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The API the service layer wires: exports, client listing, disconnect on delete, start and stop. */
@Tag("unit")
class NbdServerApiTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private final Disk disk = Disk.memory("api", 4L << 20, DiskConfig.DEFAULT);

    @Test
    void clientsAreListedPerExportWithAddressTimeAndRequestCount() {
        Instant before = Instant.now();
        try (NbdFixture nbd = new NbdFixture().export("a", disk).export("b", disk);
             RawNbdClient a = nbd.open("a", false); RawNbdClient b = nbd.open("b", true)) {
            for (long h = 0; h < 5; h++) {
                assertThat(a.read(h, 0, 4096).error()).isZero();
            }

            await().atMost(WAIT).until(() -> nbd.server.clients("a").getFirst().requestsServed() == 5);
            NbdClient ca = nbd.server.clients("a").getFirst();
            assertThat(ca.exportName()).isEqualTo("a");
            assertThat(((InetSocketAddress) ca.remoteAddress()).getAddress().isLoopbackAddress()).isTrue();
            assertThat(ca.connectedAt()).isBetween(before, Instant.now());
            assertThat(nbd.server.clients("b")).singleElement().extracting(NbdClient::requestsServed).isEqualTo(0L);
            assertThat(nbd.server.clients()).hasSize(2);
        }
    }

    @Test
    void disconnectDropsOnlyTheClientsOfThatExport() {
        try (NbdFixture nbd = new NbdFixture().export("gone", disk).export("stays", disk);
             RawNbdClient g1 = nbd.open("gone", false); RawNbdClient g2 = nbd.open("gone", true);
             RawNbdClient s = nbd.open("stays", false)) {
            nbd.exports.remove("gone");

            assertThat(nbd.server.disconnect("gone")).isEqualTo(2);

            assertThat(g1.closedByServer()).isTrue();
            assertThat(g2.closedByServer()).isTrue();
            await().atMost(WAIT).until(() -> nbd.server.clients().size() == 1);
            assertThat(s.read(1, 0, 4096).error()).isZero();
            assertThat(nbd.server.disconnect("gone")).isZero();
            try (RawNbdClient again = nbd.raw().greet()) {
                assertThat(again.tryGo("gone").getFirst().kind())
                        .isEqualTo(io.blockwork.nbd.protocol.OptionReply.ERR_UNKNOWN);
            }
        }
    }

    /**
     * A client that has its GO reply is already the export's client: listed, and dropped by the
     * export's disconnect. The start of the connection's writer thread is held back here, so a
     * server that recorded the client only after starting its writer (as it once did, after the
     * reply) fails both checks.
     */
    @Test
    void aClientIsListedAndDisconnectedAsSoonAsItHasItsGoReply() {
        CountDownLatch writersMayStart = new CountDownLatch(1);
        NbdServer.ThreadStarter holdWriters = (name, task, handler) -> {
            if (name.startsWith("nbd-writer-")) {
                awaitUninterruptibly(writersMayStart); // the connection's reader waits here
            }
            return Thread.ofPlatform().daemon().name(name).uncaughtExceptionHandler(handler).start(task);
        };
        ExportTable exports = new ExportTable().add(NbdExport.of("vol", disk));
        NbdServer server = new NbdServer(new InetSocketAddress("127.0.0.1", 0), exports, NbdLimits.DEFAULT, holdWriters);
        server.start();
        try (RawNbdClient c = RawNbdClient.connect(server.port()).greet()) {
            c.go("vol");

            assertThat(server.clients("vol")).hasSize(1);
            exports.remove("vol");
            assertThat(server.disconnect("vol")).isEqualTo(1);
            writersMayStart.countDown();
            assertThat(c.closedByServer()).isTrue();
        } finally {
            writersMayStart.countDown();
            server.stop();
        }
    }

    /** An export removed while a client negotiates is refused at GO, not served after its removal. */
    @Test
    void anExportRemovedDuringTheHandshakeIsRefusedAtGo() {
        NbdExport vol = NbdExport.of("vol", disk);
        AtomicInteger lookups = new AtomicInteger();
        ExportLookup goneAfterFirstLookup = new ExportLookup() {
            @Override
            public Optional<NbdExport> find(String name) {
                return lookups.getAndIncrement() == 0 ? Optional.of(vol) : Optional.empty();
            }

            @Override
            public List<NbdExport> list() {
                return List.of();
            }
        };
        NbdServer server = new NbdServer(new InetSocketAddress("127.0.0.1", 0), goneAfterFirstLookup);
        server.start();
        try (RawNbdClient c = RawNbdClient.connect(server.port()).greet()) {
            RawNbdClient.OptReply last = c.tryGo("vol").getLast();
            assertThat(last.kind()).isEqualTo(io.blockwork.nbd.protocol.OptionReply.ERR_UNKNOWN);
            assertThat(last.text()).contains("removed during the handshake");
            assertThat(server.clients("vol")).isEmpty();
        } finally {
            server.stop();
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void disconnectAnswersRequestsInFlightBeforeClosing() {
        RecordingDevice held = new RecordingDevice(1L << 20, DeviceLimits.of(512));
        held.hold(true);
        try (NbdFixture nbd = new NbdFixture().export("held", held); RawNbdClient c = nbd.open("held", true)) {
            for (long h = 1; h <= 3; h++) {
                c.send(NbdCommand.READ, 0, h, 0, 4096, null);
            }
            await().atMost(WAIT).until(() -> held.seen.size() == 3);

            assertThat(nbd.server.disconnect("held")).isEqualTo(1);
            held.release();

            for (int i = 0; i < 3; i++) {
                assertThat(c.reply().error()).isZero();
            }
            assertThat(c.closedByServer()).isTrue();
            await().atMost(WAIT).until(() -> nbd.server.clients().isEmpty());
        }
    }

    @Test
    void stopClosesEveryConnectionAndTheListener() {
        NbdFixture nbd = new NbdFixture().export("x", disk);
        int port = nbd.port();
        try (RawNbdClient c = nbd.open("x", false)) {
            nbd.server.stop();

            assertThat(nbd.server.isRunning()).isFalse();
            assertThat(c.closedByServer()).isTrue();
            assertThat(nbd.server.clients()).isEmpty();
            assertThatThrownBy(() -> RawNbdClient.connect(port)).isInstanceOf(UncheckedIOException.class);
        }
    }

    @Test
    void startTwiceOrOnATakenPortFailsClearly() {
        try (NbdFixture nbd = new NbdFixture()) {
            assertThatThrownBy(nbd.server::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already running");
            NbdServer clash = new NbdServer(new InetSocketAddress("127.0.0.1", nbd.port()), new ExportTable());
            assertThatThrownBy(clash::start).isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("cannot listen for NBD on");
        }
    }

    @Test
    void exportsAreValidated() {
        assertThatThrownBy(() -> NbdExport.of("", disk)).hasMessageContaining("name must not be empty");
        assertThatThrownBy(() -> NbdExport.of("a\0b", disk)).hasMessageContaining("NUL");
        assertThatThrownBy(() -> NbdExport.of("x".repeat(4097), disk)).hasMessageContaining("at most 4096");
        ExportTable t = new ExportTable().add(NbdExport.of("v", disk));
        assertThatThrownBy(() -> t.add(NbdExport.of("v", disk))).hasMessageContaining("already exists");
        assertThat(t.remove("v")).isPresent();
        assertThat(t.list()).isEmpty();
    }
}
