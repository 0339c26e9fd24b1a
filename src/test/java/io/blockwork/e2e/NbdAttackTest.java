package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.nbd.HealthyClient;
import io.blockwork.nbd.Json;
import io.blockwork.nbd.RawNbdClient;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.support.TempDataDir;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 13 finding 4 against the service in a JVM of its own: waves of clients that send 2,000
 * READs of 1 MiB each and read no reply, beside clients that read theirs slowly. Throughout, a
 * healthy client is served, a newcomer gets in, health answers truthfully (UP, with the
 * attackers' connections and memory), and the service's resident memory stays under the bound
 * below; once the attackers leave it comes back down.
 *
 * <p>RSS bound: the RSS before the attack, plus what the server's limits let the connected clients
 * hold ({@code NbdLimits.memoryBound()} for them: each connection's reservation in flight and as
 * much again in idle buffers, and the shared pool), plus 2 MiB per connection for its two threads
 * and its staging and header buffers, plus 64 MiB for the rest (compiled code, the C library's
 * per-thread heaps). The test prints the RSS it measured beside the bound. The service's heap is committed and touched at start
 * ({@code -Xms} = {@code -Xmx}, {@code AlwaysPreTouch}), so that what RSS grows by is what the
 * attack costs, not the heap filling out. Afterwards RSS must be back within 64 MiB of where it
 * started.
 *
 * <p>In {@code verify} it runs one 10 s wave of 50 silent and 4 slow clients. A longer run:
 * {@code mvn -B -ntp test -Dtest=NbdAttackTest -Dnbd.attack.seconds=600 -Dnbd.attack.clients=110}.
 */
@Tag("api")
class NbdAttackTest {

    private static final long MIB = 1 << 20;
    private static final int SILENT = Integer.getInteger("nbd.attack.clients", 50);
    private static final int SLOW = 4;
    private static final int READS = 2000;
    private static final long SECONDS = Long.getLong("nbd.attack.seconds", 10);
    private static final long WAVE_SECONDS = 10;
    private static final long SHARED = 128 * MIB;
    private static final long RESERVED = 4 * MIB;
    private static final long SIZE = 64 * MIB;

    @Test
    void silentAndSlowClientsNeitherStarveOthersNorGrowTheServiceBeyondItsBound() throws Exception {
        try (ServiceProcess svc = ServiceProcess.start(TempDataDir.newDataDir(), "512m", Map.of(
                "blockwork.nbd.max-connections", Integer.toString(SILENT + SLOW + 8),
                "blockwork.nbd.memory.shared", (SHARED >> 20) + "MB"))) {
            ServiceClient api = svc.client();
            for (String name : List.of("target", "good")) {
                assertThat(api.postJson("/api/v1/disks", "{\"name\":\"" + name + "\",\"type\":\"memory\",\"size\":\"64MiB\"}")
                        .statusCode()).isEqualTo(201);
                assertThat(api.postJson("/api/v1/exports", "{\"name\":\"" + name + "\",\"device\":\"" + name + "\"}")
                        .statusCode()).isEqualTo(201);
            }
            HealthyClient healthy = new HealthyClient(() -> RawNbdClient.connect(svc.nbdPort()).greet().go("good"), SIZE);
            healthy.assertStillServed("start");
            // warm up the attack path once (classes, JIT), so the baseline is the service's, not a cold JVM's
            wave(svc, 2, 1, 64).forEach(RawNbdClient::close);
            awaitConnections(api, 1);
            long baseline = svc.rssBytes();
            long bound = baseline + (SILENT + SLOW + 2) * (2 * RESERVED + 2 * MIB) + SHARED + 64 * MIB;

            AtomicLong peak = new AtomicLong(baseline);
            AtomicBoolean sampling = new AtomicBoolean(true);
            Thread sampler = Thread.ofVirtual().start(() -> {
                while (sampling.get()) {
                    peak.accumulateAndGet(svc.rssBytes(), Math::max);
                    LockSupport.parkNanos(100_000_000); // pacing the samples, not synchronisation
                }
            });
            long deadline = System.nanoTime() + Duration.ofSeconds(SECONDS).toNanos();
            int waves = 0;
            long afterLast = 0;
            do {
                List<RawNbdClient> attackers = wave(svc, SILENT, SLOW, READS);
                waves++;
                Object nbd = awaitPoolUsedUp(api);
                assertThat(Json.number(nbd, "details", "connections")).isGreaterThanOrEqualTo(SILENT + 1);
                long waveEnd = System.nanoTime() + Duration.ofSeconds(Math.min(WAVE_SECONDS, SECONDS)).toNanos();
                while (System.nanoTime() < waveEnd) {
                    healthy.assertStillServed("wave " + waves + " of silent and slow clients");
                    Object during = Json.at(health(api), "components", "nbd");
                    assertThat(Json.at(during, "status")).isEqualTo("UP");
                    assertThat(Json.number(during, "details", "sharedBytesInUse")).isLessThanOrEqualTo(SHARED);
                    assertThat(peak.get()).as("RSS (MiB)").isLessThanOrEqualTo(bound);
                }
                try (RawNbdClient newcomer = RawNbdClient.connect(svc.nbdPort()).greet().go("good")) {
                    assertThat(newcomer.read(1, 0, (int) MIB).error()).isZero();
                }
                attackers.forEach(RawNbdClient::close);
                awaitConnections(api, 1);
                await("RSS back down after wave " + waves).atMost(Duration.ofSeconds(60))
                        .until(() -> svc.rssBytes() <= baseline + 64 * MIB);
                afterLast = svc.rssBytes();
            } while (System.nanoTime() < deadline);
            sampling.set(false);
            sampler.join();

            Object nbd = Json.at(health(api), "components", "nbd");
            assertThat(Json.at(nbd, "status")).isEqualTo("UP");
            assertThat(Json.number(nbd, "details", "failures")).isZero();
            assertThat(peak.get()).isLessThanOrEqualTo(bound);
            healthy.assertStillServed("the attack");
            System.out.printf("NBD_ATTACK waves=%d silent=%d slow=%d reads=%d rss_baseline_mib=%d rss_peak_mib=%d "
                            + "rss_bound_mib=%d rss_after_mib=%d healthy_longest_ms=%d healthy_ops=%d%n", waves, SILENT,
                    SLOW, READS, baseline >> 20, peak.get() >> 20, bound >> 20, afterLast >> 20,
                    healthy.longestWaitMillis(), healthy.ops());
            healthy.close();
        }
    }

    /**
     * {@code silent} clients that send {@code reads} 1 MiB READs and read nothing, and {@code slow}
     * ones that read their replies at about 50 MiB/s.
     */
    private static List<RawNbdClient> wave(ServiceProcess svc, int silent, int slow, int reads) {
        List<RawNbdClient> clients = new ArrayList<>();
        for (int i = 0; i < silent + slow; i++) {
            RawNbdClient c = RawNbdClient.connect(svc.nbdPort()).greet().go("target");
            clients.add(c);
            Thread.ofVirtual().start(() -> {
                try {
                    for (int h = 0; h < reads; h++) {
                        c.send(NbdCommand.READ, 0, h, (h % 64) * MIB, (int) MIB, null);
                    }
                } catch (RuntimeException closed) {
                    // the wave ended (or the server dropped it) while it was still sending
                }
            });
            if (i >= silent) {
                Thread.ofVirtual().start(() -> {
                    try {
                        for (int h = 0; h < reads; h++) {
                            c.reply();
                            LockSupport.parkNanos(20_000_000); // pacing: a slow reader
                        }
                    } catch (RuntimeException closed) {
                        // the wave ended
                    }
                });
            }
        }
        return clients;
    }

    private static Object health(ServiceClient api) throws Exception {
        return Json.parseObject(api.get("/actuator/health").body());
    }

    private static Object awaitPoolUsedUp(ServiceClient api) {
        Object[] nbd = new Object[1];
        await("the attackers to use up the shared pool").atMost(Duration.ofSeconds(60)).until(() -> {
            nbd[0] = Json.at(health(api), "components", "nbd");
            return Json.number(nbd[0], "details", "sharedBytesInUse") > SHARED - 2 * MIB;
        });
        return nbd[0];
    }

    private static void awaitConnections(ServiceClient api, int n) {
        await("connections down to " + n).atMost(Duration.ofSeconds(120))
                .until(() -> Json.number(Json.at(health(api), "components", "nbd"), "details", "connections") == n);
    }
}
