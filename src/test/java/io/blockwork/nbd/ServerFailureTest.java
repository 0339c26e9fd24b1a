package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 13 finding 4: an error in a server thread used to kill it silently (the port stayed in
 * LISTEN, health said UP). Now every such error is reported in the server's status, the failing
 * connection alone is dropped, and the accept loop starts again.
 */
@Tag("unit")
class ServerFailureTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void anErrorInAConnectionIsReportedAndDropsThatConnectionOnly() throws Exception {
        try (NbdFixture nbd = new NbdFixture()) {
            nbd.export("broken", new ThrowingDevice("broken")).export("good", Disk.memory("good", 1 << 20, DiskConfig.DEFAULT));
            HealthyClient healthy = HealthyClient.on(nbd, "good", 1 << 20);
            try (RawNbdClient c = nbd.open("broken", false)) {
                assertThat(c.write(1, 0, new byte[4096], 0).error()).isZero();
                c.send(io.blockwork.nbd.protocol.NbdCommand.READ, 0, 2, 0, 4096, null);
                assertThat(c.closedAfterDraining()).isTrue();
            }
            await().atMost(WAIT).until(() -> nbd.server.clients("broken").isEmpty());
            NbdServerStatus s = nbd.server.status();
            assertThat(s.failures()).isEqualTo(1);
            assertThat(s.healthy()).isFalse();
            assertThat(s.lastFailure().where()).contains("broken").contains("reader");
            assertThat(s.lastFailure().error()).contains("OutOfMemoryError").contains(ThrowingDevice.MESSAGE);
            assertThat(s.bytesInFlight()).as("the failed request gave its budget back").isLessThan(1 << 20);
            healthy.assertStillServed("a connection failed");
            healthy.close();
        }
    }

    @Test
    void theAcceptLoopSurvivesAFailureAndServesTheNextClient() {
        AtomicInteger starts = new AtomicInteger();
        NbdServer.ThreadStarter failFirst = (name, task, handler) -> {
            if (starts.getAndIncrement() == 0) {
                throw new OutOfMemoryError("unable to create native thread: injected by the test");
            }
            return Thread.ofPlatform().daemon().name(name).uncaughtExceptionHandler(handler).start(task);
        };
        ExportTable exports = new ExportTable().add(NbdExport.of("vol", Disk.memory("vol", 1 << 20, DiskConfig.DEFAULT)));
        NbdServer server = new NbdServer(new InetSocketAddress("127.0.0.1", 0), exports, NbdLimits.DEFAULT, failFirst);
        server.start();
        try {
            try (RawNbdClient first = RawNbdClient.connect(server.port())) {
                assertThat(first.closedAfterDraining()).as("the client whose thread could not start").isTrue();
            }
            await().atMost(WAIT).until(() -> server.status().acceptLoopRestarts() == 1);
            try (RawNbdClient next = RawNbdClient.connect(server.port()).greet()) {
                next.go("vol");
                assertThat(next.flush(1).error()).isZero();
            }
            NbdServerStatus s = server.status();
            assertThat(s.accepting()).isTrue();
            assertThat(s.failures()).isEqualTo(1);
            assertThat(s.lastFailure().where()).isEqualTo("nbd-accept");
            assertThat(s.lastFailure().error()).contains("unable to create native thread");
            await().atMost(WAIT).until(() -> server.status().connections() == 0);
        } finally {
            server.stop();
        }
    }

    /**
     * Sockets that connect and never negotiate hold slots; with the server full, a newcomer takes
     * the slot of the one negotiating longest once that has for a tenth of the handshake timeout
     * (2 s here), long before the timeout (20 s) would free it. A client that has finished
     * negotiating keeps its slot.
     */
    @Test
    void aNewcomerToAFullServerDisplacesTheClientNegotiatingLongest() {
        try (NbdFixture nbd = new NbdFixture(NbdLimits.DEFAULT.withMaxConnections(2)
                .withHandshakeTimeout(Duration.ofSeconds(20)))) {
            nbd.export("vol", Disk.memory("vol", 1 << 20, DiskConfig.DEFAULT));
            try (RawNbdClient served = nbd.open("vol", false); RawNbdClient silent = nbd.raw().greet()) {
                List<RawNbdClient> admitted = new ArrayList<>();
                await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                        .until(() -> negotiated(nbd, "vol", admitted));
                try (RawNbdClient newcomer = admitted.getFirst()) {
                    assertThat(silent.closedAfterDraining()).as("the silent client lost its slot").isTrue();
                    assertThat(newcomer.flush(1).error()).isZero();
                    assertThat(served.flush(2).error()).as("a negotiated client keeps its slot").isZero();
                }
            }
            assertThat(nbd.server.status().healthy()).isTrue();
        }
    }

    @Test
    void clientsThatFinishedNegotiatingAreNeverDisplaced() {
        try (NbdFixture nbd = new NbdFixture(NbdLimits.DEFAULT.withMaxConnections(1)
                .withHandshakeTimeout(Duration.ofSeconds(5)))) {
            nbd.export("vol", Disk.memory("vol", 1 << 20, DiskConfig.DEFAULT));
            try (RawNbdClient served = nbd.open("vol", false)) {
                List<RawNbdClient> admitted = new ArrayList<>();
                // past the grace (0.5 s) and the handshake timeout: newcomers are refused throughout
                await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
                        .until(() -> !negotiated(nbd, "vol", admitted));
                assertThat(served.flush(1).error()).isZero();
                assertThat(nbd.server.status().refusedConnections()).isPositive();
            }
        }
    }

    /** Connects and negotiates {@code export}; adds the client to {@code admitted} if the server let it in. */
    private static boolean negotiated(NbdFixture nbd, String export, List<RawNbdClient> admitted) {
        RawNbdClient c = nbd.raw();
        try {
            c.greet().go(export);
            admitted.add(c);
            return true;
        } catch (UncheckedIOException | AssertionError e) {
            c.close();
            return false;
        }
    }

    @Test
    void clientsBeyondTheConnectionLimitAreRefusedAtOnce() {
        try (NbdFixture nbd = new NbdFixture(NbdLimits.DEFAULT.withMaxConnections(2))) {
            nbd.export("vol", Disk.memory("vol", 1 << 20, DiskConfig.DEFAULT));
            RawNbdClient a = nbd.open("vol", false);
            try (RawNbdClient b = nbd.raw().greet(); RawNbdClient refused = nbd.raw()) {
                assertThat(refused.closedAfterDraining()).isTrue();
                assertThat(nbd.server.status().refusedConnections()).isEqualTo(1);
                b.go("vol");
                assertThat(b.flush(1).error()).isZero();
            }
            a.close();
            await().atMost(WAIT).until(() -> nbd.server.status().connections() == 0);
            try (RawNbdClient c = nbd.open("vol", false)) {
                assertThat(c.flush(2).error()).isZero();
            }
            assertThat(nbd.server.status().healthy()).isTrue();
        }
    }
}
