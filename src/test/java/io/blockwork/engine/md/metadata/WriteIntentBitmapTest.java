package io.blockwork.engine.md.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/**
 * The bitmap's promises: a write goes ahead only once its bit is on the members, writes share
 * write-outs, bits clear only after their chunk was idle for two daemon passes (with
 * events_cleared recorded first), chunks a write did not finish on every copy stay until synced.
 */
@Tag("unit")
class WriteIntentBitmapTest {

    private static final int CHUNK = 65536;
    private static final long SYNC = 1024L * CHUNK;

    /** A store whose writes land on a byte image when completed: at once, or when the test says. */
    static class Store implements WriteIntentBitmap.Store {
        final byte[] disk = new byte[4096];
        final List<Runnable> held = new ArrayList<>();
        final List<Boolean> preflushes = new ArrayList<>();
        volatile boolean hold;
        int writes;

        @Override
        public synchronized void write(long areaOffset, byte[] data, boolean preflush, Runnable done) {
            writes++;
            preflushes.add(preflush);
            Runnable land = () -> {
                synchronized (this) {
                    System.arraycopy(data, 0, disk, (int) areaOffset, data.length);
                }
                done.run();
            };
            if (hold) {
                held.add(land);
            } else {
                land.run();
            }
        }

        void release() {
            List<Runnable> now;
            synchronized (this) {
                now = new ArrayList<>(held);
                held.clear();
            }
            now.forEach(Runnable::run);
        }

        synchronized boolean bit(int chunk) {
            return (disk[256 + chunk / 8] & (1 << (chunk % 8))) != 0;
        }

        synchronized long eventsCleared() {
            return java.nio.ByteBuffer.wrap(disk).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(32);
        }
    }

    private final Store store = new Store();
    private final AtomicLong events = new AtomicLong(5);
    private final AtomicBoolean degraded = new AtomicBoolean();

    private WriteIntentBitmap bitmap(byte[] bits, long neededFrom) {
        BitmapSuperblock sb = new BitmapSuperblock(4, MdUuid.random(), 5, 0, SYNC / 512, 0, CHUNK, 5, 0, 8);
        return new WriteIntentBitmap(sb, bits, neededFrom, store, degraded::get, events::get);
    }

    @Test
    void aWriteWaitsUntilItsBitIsOnTheMembers() {
        WriteIntentBitmap b = bitmap(new byte[128], Long.MAX_VALUE);
        store.hold = true;
        AtomicInteger ran = new AtomicInteger();
        b.startWrite(3L * CHUNK + 512, 4096, ran::incrementAndGet);
        b.startWrite(3L * CHUNK, 4096, ran::incrementAndGet);
        assertThat(ran).hasValue(0);
        assertThat(store.bit(3)).isFalse();
        store.release();
        assertThat(ran).hasValue(2);
        assertThat(store.bit(3)).isTrue();
        assertThat(store.writes).isEqualTo(1);

        // the bit is durable: the next write to the chunk costs no bitmap write
        b.startWrite(3L * CHUNK + 8192, 4096, ran::incrementAndGet);
        assertThat(ran).hasValue(3);
        assertThat(store.writes).isEqualTo(1);
    }

    @Test
    void aWriteAcrossTwoChunksSetsBoth() {
        WriteIntentBitmap b = bitmap(new byte[128], Long.MAX_VALUE);
        b.startWrite(5L * CHUNK - 4096, 8192, () -> {});
        assertThat(store.bit(4)).isTrue();
        assertThat(store.bit(5)).isTrue();
        assertThat(store.bit(6)).isFalse();
        assertThat(b.dirtyChunks()).isEqualTo(2);
    }

    @Test
    void bitsClearAfterTwoIdlePassesWithEventsClearedRecordedFirst() {
        WriteIntentBitmap b = bitmap(new byte[128], Long.MAX_VALUE);
        b.startWrite(7L * CHUNK, 4096, () -> {});
        b.daemonPass();
        assertThat(store.bit(7)).as("a write is in flight").isTrue();
        b.endWrite(7L * CHUNK, 4096, true);
        b.daemonPass();
        assertThat(store.bit(7)).as("idle for one pass").isTrue();
        b.daemonPass();
        assertThat(store.bit(7)).isFalse();
        assertThat(store.eventsCleared()).isEqualTo(5);
        assertThat(store.preflushes.getLast()).as("the data the bit stood for is made durable first").isTrue();
        assertThat(b.dirtyChunks()).isZero();
    }

    @Test
    void aNewWriteStopsTheCountdown() {
        WriteIntentBitmap b = bitmap(new byte[128], Long.MAX_VALUE);
        b.startWrite(0, 4096, () -> {});
        b.endWrite(0, 4096, true);
        b.daemonPass();
        b.startWrite(0, 4096, () -> {});
        b.endWrite(0, 4096, true);
        b.daemonPass();
        assertThat(store.bit(0)).isTrue();
        b.daemonPass();
        assertThat(store.bit(0)).isFalse();
    }

    @Test
    void aChunkNotWrittenOnEveryCopyStaysUntilSynced() {
        WriteIntentBitmap b = bitmap(new byte[128], Long.MAX_VALUE);
        degraded.set(true);
        b.startWrite(9L * CHUNK, 4096, () -> {});
        b.endWrite(9L * CHUNK, 4096, false);
        b.flushIdle();
        b.flushIdle();
        assertThat(store.bit(9)).isTrue();
        assertThat(b.needed(9L * CHUNK, 1)).isTrue();
        assertThat(b.nextNeeded(0)).isEqualTo(9L * CHUNK);
        assertThat(store.eventsCleared()).as("no events_cleared while degraded").isZero();

        degraded.set(false);
        b.synced(9L * CHUNK, CHUNK);
        assertThat(b.needed(9L * CHUNK, 1)).isFalse();
        b.flushIdle();
        assertThat(store.bit(9)).isFalse();
    }

    @Test
    void bitsFoundSetAreNeededFromTheGivenOffset() {
        byte[] bits = new byte[128];
        bits[0] = 0b0010_0001;
        WriteIntentBitmap b = bitmap(bits, 2L * CHUNK);
        assertThat(b.needed(0, CHUNK)).isFalse();
        assertThat(b.needed(5L * CHUNK, CHUNK)).isTrue();
        assertThat(b.neededChunks()).isEqualTo(1);
        assertThat(b.dirtyChunks()).isEqualTo(2);
    }

    /**
     * Writers, completions on other threads and the daemon race; every write that goes ahead finds
     * its bit on the members, whatever clears and sets interleave.
     */
    @Test
    void underConcurrencyEveryWriteFindsItsBitDurable() throws Exception {
        ExecutorService completions = Executors.newFixedThreadPool(2);
        Store async = new Store() {
            @Override
            public synchronized void write(long areaOffset, byte[] data, boolean preflush, Runnable done) {
                completions.execute(() -> {
                    synchronized (this) {
                        System.arraycopy(data, 0, disk, (int) areaOffset, data.length);
                    }
                    done.run();
                });
            }
        };
        BitmapSuperblock sb = new BitmapSuperblock(4, MdUuid.random(), 5, 0, (64L * CHUNK) / 512, 0, CHUNK, 5, 0, 8);
        WriteIntentBitmap b = new WriteIntentBitmap(sb, new byte[8], Long.MAX_VALUE, async, () -> false, events::get);
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread daemon = Thread.ofPlatform().start(() -> {
            while (running.get()) {
                b.daemonPass();
            }
        });
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            long seed = t;
            writers.add(Thread.ofPlatform().start(() -> {
                Random r = new Random(seed);
                for (int i = 0; i < 3000; i++) {
                    int chunk = r.nextInt(64);
                    java.util.concurrent.CountDownLatch went = new java.util.concurrent.CountDownLatch(1);
                    b.startWrite((long) chunk * CHUNK, 4096, () -> {
                        if (!async.bit(chunk)) {
                            violations.incrementAndGet();
                        }
                        went.countDown();
                    });
                    try {
                        went.await();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                    b.endWrite((long) chunk * CHUNK, 4096, true);
                    done.incrementAndGet();
                }
            }));
        }
        for (Thread w : writers) {
            w.join();
        }
        running.set(false);
        daemon.join();
        completions.shutdown();
        assertThat(completions.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(done).hasValue(12000);
        assertThat(violations).hasValue(0);
    }
}
