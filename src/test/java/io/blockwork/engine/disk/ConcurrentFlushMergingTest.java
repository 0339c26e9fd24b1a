package io.blockwork.engine.disk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.IoTimer;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * 64 threads flush a writeback disk at once while its first media flush is held open. Counting,
 * not timing: at most two media flushes serve all 64, and each request is served by a media flush
 * that started after it arrived.
 */
@Tag("unit")
class ConcurrentFlushMergingTest {

    /** A writeback memory medium whose flushes wait at a gate and are numbered. */
    static final class GatedMedium implements Medium {
        private final MemoryMedium inner = new MemoryMedium(1L << 20, CacheMode.WRITEBACK);
        final CountDownLatch gate = new CountDownLatch(1);
        final AtomicInteger started = new AtomicInteger();
        final AtomicInteger completed = new AtomicInteger();

        @Override
        public void flush() {
            started.incrementAndGet();
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            inner.flush();
            completed.incrementAndGet();
        }

        @Override public long sizeBytes() { return inner.sizeBytes(); }
        @Override public void read(long offset, MemorySegment into) { inner.read(offset, into); }
        @Override public void write(long offset, MemorySegment from, boolean durable) { inner.write(offset, from, durable); }
        @Override public void discard(long offset, long length) { inner.discard(offset, length); }
        @Override public void writeZeroes(long offset, long length) { inner.writeZeroes(offset, length); }
        @Override public boolean nativeFua() { return true; }
        @Override public boolean blocking() { return true; }
        @Override public long allocatedBytes() { return inner.allocatedBytes(); }
        @Override public boolean persistent() { return false; }
        @Override public void close() { inner.close(); }
    }

    @Test
    void sixtyFourConcurrentFlushesAreServedByAtMostTwoMediaFlushes() throws Exception {
        int n = 64;
        GatedMedium medium = new GatedMedium();
        Disk disk = new Disk("gated", medium, DiskConfig.writeback(), IoTimer.shared());
        AtomicIntegerArray startedAtArrival = new AtomicIntegerArray(n);
        AtomicIntegerArray servedBy = new AtomicIntegerArray(n);
        AtomicIntegerArray status = new AtomicIntegerArray(n);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(n);

        // The first request goes alone and its media flush is seen to start and hold; the other 63
        // then arrive together, strictly after it started.
        Runnable[] submitters = new Runnable[n];
        for (int i = 0; i < n; i++) {
            int id = i;
            submitters[i] = () -> {
                startedAtArrival.set(id, medium.started.get());
                disk.submit(Bio.flush(bio -> {
                    // Runs as the serving media flush completes, before the next can complete.
                    servedBy.set(id, medium.completed.get());
                    status.set(id, bio.status().ordinal());
                    done.countDown();
                }));
            };
        }
        submitters[0].run();
        await().atMost(Duration.ofSeconds(30)).until(() -> medium.started.get() == 1);
        try (ExecutorService threads = Executors.newFixedThreadPool(n - 1)) {
            for (int i = 1; i < n; i++) {
                Runnable submit = submitters[i];
                threads.execute(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    submit.run();
                });
            }
            go.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> disk.counters().flushes() == n);
            assertThat(medium.started.get()).as("the first media flush is still held").isEqualTo(1);
            medium.gate.countDown();
            assertThat(done.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        }

        assertThat(disk.mediaFlushes()).isLessThanOrEqualTo(2);
        for (int i = 0; i < n; i++) {
            assertThat(status.get(i)).isEqualTo(IoStatus.OK.ordinal());
            assertThat(servedBy.get(i)).as("request %d served by a flush that started after it arrived", i)
                    .isGreaterThan(startedAtArrival.get(i));
        }
    }
}
