package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A well-behaved client on a connection of its own: it writes random 4 KiB blocks and reads each
 * back, checking the data, until closed. Tests that attack the server check it keeps being served,
 * and how long it ever waited for one write-and-read ({@link #longestWaitMillis()}).
 */
public final class HealthyClient implements AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong ops = new AtomicLong();
    private final AtomicLong longestNanos = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread thread;

    /** @param open a client already in transmission on the export (structured replies or not) */
    public HealthyClient(Supplier<RawNbdClient> open, long exportBytes) {
        thread = Thread.ofPlatform().name("healthy-client").start(() -> {
            Random rnd = new Random(5);
            try (RawNbdClient c = open.get()) {
                byte[] data = new byte[4096];
                for (long h = 1; running.get(); h += 2) {
                    long started = System.nanoTime();
                    rnd.nextBytes(data);
                    long off = rnd.nextInt((int) (exportBytes / 4096)) * 4096L;
                    RawNbdClient.Reply w = c.write(h, off, data, 0);
                    RawNbdClient.Reply r = c.read(h + 1, off, 4096);
                    if (w.error() != 0 || r.error() != 0 || !Arrays.equals(r.data(), data)) {
                        throw new AssertionError("healthy client saw " + w + " / " + r);
                    }
                    longestNanos.accumulateAndGet(System.nanoTime() - started, Math::max);
                    ops.incrementAndGet();
                }
                c.disconnect();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
    }

    public static HealthyClient on(NbdFixture nbd, String export, long exportBytes) {
        return new HealthyClient(() -> nbd.open(export, true), exportBytes);
    }

    public long ops() {
        return ops.get();
    }

    /** The longest one write-and-read took so far. */
    public long longestWaitMillis() {
        return longestNanos.get() / 1_000_000;
    }

    /** Waits until it has done a few more operations (or failed), and checks it has not failed. */
    public void assertStillServed(String after) {
        long before = ops.get();
        await(after).atMost(WAIT).until(() -> ops.get() > before + 2 || failure.get() != null);
        assertThat(failure.get()).as("healthy client after " + after).isNull();
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.join(WAIT.toMillis());
        assertThat(failure.get()).as("healthy client").isNull();
    }
}
