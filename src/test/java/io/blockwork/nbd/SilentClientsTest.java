package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Issue 13 finding 4, in process: clients that send many large READs and read none (or hardly
 * any) of the replies. The server stops reading their requests when their budget is spent instead
 * of buffering, its request memory stays under the limits, a healthy client is served throughout,
 * newcomers still get in, and everything is given back when the attackers leave or are dropped.
 * (The same attack against the whole service in its own process, with its RSS measured, is
 * {@code e2e/NbdAttackTest}.)
 */
@Tag("unit")
class SilentClientsTest {

    private static final long MIB = 1 << 20;
    private static final long RESERVED = 4 * MIB;
    private static final long SHARED = 64 * MIB;
    private static final long SIZE = 64 * MIB;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final NbdLimits limits;
    private final NbdFixture nbd;
    private final List<RawNbdClient> attackers = new ArrayList<>();
    private final HealthyClient healthy;

    /** A test about the reply timeout: it gets a short one (2 s). */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    private @interface ShortReplyTimeout {}

    /**
     * The other tests keep the default (60 s): on a loaded machine, connecting 50 attackers can
     * take longer than 2 s, and the watchdog would drop the first before the last had come.
     */
    SilentClientsTest(TestInfo test) {
        boolean shortTimeout = test.getTestMethod().orElseThrow().isAnnotationPresent(ShortReplyTimeout.class);
        NbdLimits l = NbdLimits.DEFAULT.withMemory(RESERVED, SHARED).withMaxConnections(64);
        limits = shortTimeout ? l.withReplyTimeout(Duration.ofSeconds(2)) : l;
        nbd = new NbdFixture(limits);
        nbd.export("target", Disk.memory("target", SIZE, DiskConfig.DEFAULT));
        nbd.export("good", Disk.memory("good", SIZE, DiskConfig.DEFAULT));
        healthy = HealthyClient.on(nbd, "good", SIZE);
    }

    @AfterEach
    void stop() throws InterruptedException {
        attackers.forEach(RawNbdClient::close);
        healthy.close();
        nbd.close();
        assertThat(nbd.server.status().failures()).as("unexpected server failures").isZero();
    }

    /** {@code n} clients, each sending {@code reads} 1 MiB READs and reading no reply. */
    private void attack(int n, int reads) {
        for (int i = 0; i < n; i++) {
            RawNbdClient c = nbd.open("target", false);
            attackers.add(c);
            c.sendReads(reads, (int) MIB, SIZE);
        }
    }

    @Test
    void fiftyClientsThatReadNoRepliesCannotTakeMoreThanTheirReservationsAndThePool() throws Exception {
        attack(50, 2000);
        // The pool is used up: the attack bites.
        await().atMost(WAIT).until(() -> nbd.server.status().sharedBytesInUse() > SHARED - MIB - 64 * 1024);
        NbdServerStatus during = nbd.server.status();
        assertThat(during.sharedBytesInUse()).isLessThanOrEqualTo(SHARED);
        assertThat(during.bytesInFlight()).as("request memory held")
                .isLessThanOrEqualTo(51 * RESERVED + SHARED);
        healthy.assertStillServed("50 silent clients took the whole shared pool");
        try (RawNbdClient newcomer = nbd.open("good", true)) { // its reservation is all it needs
            assertThat(newcomer.read(1, 0, 65536).error()).isZero();
        }
        assertThat(during.healthy()).isTrue();

        attackers.forEach(RawNbdClient::close);
        await().atMost(WAIT).until(() -> nbd.server.status().connections() == 1);
        NbdServerStatus after = nbd.server.status();
        assertThat(after.sharedBytesInUse()).isZero();
        assertThat(after.bytesInFlight()).isLessThanOrEqualTo(RESERVED);
        // What stays idle: the healthy client's buffers and the server's spares, at most a reservation each.
        assertThat(after.pooledBytes()).as("idle buffers of the attackers are freed").isLessThanOrEqualTo(2 * RESERVED);
        healthy.assertStillServed("the attackers left");
        System.out.printf("silent-clients: held %d MiB of %d MiB bound during the attack; healthy client's "
                        + "longest write+read %d ms%n", during.bytesInFlight() >> 20, limits.memoryBound() >> 20,
                healthy.longestWaitMillis());
    }

    /**
     * A client that queued 2,000 READs in one go and hung up: once a reply to it fails, the
     * connection is closed and the requests still in its staging buffer are not served for
     * nobody. They used to be: a departing attacker made the server read, map and fill up to 2 GiB
     * of buffers it could not send, which kept a crowd of them "connected" for minutes.
     */
    @Test
    void theRequestsAClientLeftBehindWhenItHungUpAreNotServed() throws Exception {
        GatedDevice target = new GatedDevice(Disk.memory("lonely", SIZE, DiskConfig.DEFAULT));
        nbd.export("lonely", target);
        RawNbdClient c = nbd.open("lonely", false);
        int requests = 2000; // 56,000 bytes of headers in one write: one read fills the staging buffer with them
        c.sendReads(requests, 65536, SIZE);
        assertThat(target.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue(); // the reader is inside the first READ
        c.close();
        target.open.countDown();
        await().atMost(WAIT).until(() -> nbd.server.clients("lonely").isEmpty());
        assertThat(target.submitted.get()).as("READs served for a client that had hung up").isLessThan(requests / 4);
        assertThat(nbd.server.status().sharedBytesInUse()).isZero();
        healthy.assertStillServed("a client hung up with 2,000 requests queued");
    }

    /** A memory disk whose first bio waits in {@code submit} until the test opens the gate. */
    private static final class GatedDevice extends AbstractBlockDevice {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);
        final AtomicInteger submitted = new AtomicInteger();
        private final Disk disk;

        GatedDevice(Disk disk) {
            super(disk.name());
            this.disk = disk;
        }

        @Override
        protected void dispatch(Bio bio) {
            if (submitted.getAndIncrement() == 0) {
                entered.countDown();
                try {
                    open.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            disk.submit(bio);
        }

        @Override
        public long sizeBytes() {
            return disk.sizeBytes();
        }

        @Override
        public DeviceLimits limits() {
            return disk.limits();
        }
    }

    @Test
    @ShortReplyTimeout
    void clientsThatReadNoneOfTheirRepliesAreDroppedAfterTheReplyTimeout() throws Exception {
        attack(5, 200);
        await().atMost(WAIT).until(() -> nbd.server.status().stalledClientsDropped() == 5);
        await().atMost(WAIT).until(() -> nbd.server.status().connections() == 1);
        assertThat(nbd.server.status().sharedBytesInUse()).isZero();
        healthy.assertStillServed("silent clients were dropped");
    }

    @Test
    @ShortReplyTimeout
    void slowReadersAreServedAtTheirPaceAndNotDropped() throws Exception {
        AtomicBoolean reading = new AtomicBoolean(true);
        List<Thread> readers = new ArrayList<>();
        attack(4, 300);
        for (RawNbdClient c : attackers) {
            readers.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 300 && reading.get(); i++) {
                    c.reply(); // about 1 MiB
                    LockSupport.parkNanos(3_000_000); // pacing: a slow reader, not synchronisation
                }
            }));
        }
        long start = System.nanoTime();
        await().atMost(WAIT).until(() -> System.nanoTime() - start > limits.replyTimeout().toNanos() * 2
                && nbd.server.clients("target").stream().allMatch(c -> c.requestsServed() > 20));
        assertThat(nbd.server.status().stalledClientsDropped()).isZero();
        assertThat(nbd.server.clients("target")).hasSize(4);
        healthy.assertStillServed("slow readers");
        reading.set(false);
        for (Thread t : readers) {
            t.join(WAIT.toMillis());
        }
    }
}
