package io.blockwork.engine.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.IoTimer;
import io.blockwork.engine.block.ManualClock;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class RegionCopierTest {

    private RegionCopier copier;

    @AfterEach
    void close() {
        if (copier != null) {
            copier.close();
        }
    }

    private static MemorySegment random(int bytes, long seed) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return MemorySegment.ofArray(b);
    }

    private static MemorySegment read(Disk d, long off, int len) {
        MemorySegment m = MemorySegment.ofArray(new byte[len]);
        SyncIo.read(d, off, m);
        return m;
    }

    private static CopyResult await(CompletableFuture<CopyResult> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    @Test
    void copiesARangeToEveryTargetInChunks() throws Exception {
        Disk src = Disk.memory("src", 8 << 20, DiskConfig.DEFAULT);
        Disk a = Disk.memory("a", 8 << 20, DiskConfig.DEFAULT);
        Disk b = Disk.memory("b", 8 << 20, DiskConfig.DEFAULT);
        int len = 3 * 128 * 1024 + 4096; // not a whole number of chunks
        SyncIo.write(src, 4096, random(len, 1));
        copier = new RegionCopier("t", RegionCopier.Config.DEFAULT, IoTimer.shared());
        CompletableFuture<CopyResult> done = new CompletableFuture<>();
        RegionCopier.Job job = copier.copy(src, 4096, List.of(new CopyTarget(a, 0), new CopyTarget(b, 1 << 20)), len,
                done::complete);
        CopyResult r = await(done);
        assertThat(r.ok()).isTrue();
        assertThat(job.bytesDone()).isEqualTo(len);
        assertThat(job.finished()).isTrue();
        assertThat(read(a, 0, len).mismatch(random(len, 1))).isEqualTo(-1);
        assertThat(read(b, 1 << 20, len).mismatch(random(len, 1))).isEqualTo(-1);
        assertThat(copier.bytesCopied()).isEqualTo(len);
    }

    @Test
    void zeroJobsClearTheirTargets() throws Exception {
        Disk a = Disk.memory("a", 4 << 20, DiskConfig.DEFAULT);
        SyncIo.write(a, 0, random(1 << 20, 2));
        copier = new RegionCopier("t", RegionCopier.Config.DEFAULT, IoTimer.shared());
        CompletableFuture<CopyResult> done = new CompletableFuture<>();
        copier.zero(List.of(new CopyTarget(a, 0)), 1 << 20, done::complete);
        assertThat(await(done).ok()).isTrue();
        assertThat(a.allocatedBytes()).isZero();
    }

    @Test
    void aFailedReadFailsTheJobAndWritesNothing() throws Exception {
        Disk src = Disk.memory("src", 4 << 20, DiskConfig.DEFAULT);
        Disk a = Disk.memory("a", 4 << 20, DiskConfig.DEFAULT);
        src.faults(new DiskFaults(true, false, false));
        copier = new RegionCopier("t", RegionCopier.Config.DEFAULT, IoTimer.shared());
        CompletableFuture<CopyResult> done = new CompletableFuture<>();
        copier.copy(src, 0, List.of(new CopyTarget(a, 0)), 256 * 1024, done::complete);
        CopyResult r = await(done);
        assertThat(r.read()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(a.counters().writes()).isZero();
    }

    @Test
    void aFailedWriteNamesTheTargetThatFailed() throws Exception {
        Disk src = Disk.memory("src", 4 << 20, DiskConfig.DEFAULT);
        Disk a = Disk.memory("a", 4 << 20, DiskConfig.DEFAULT);
        Disk b = Disk.memory("b", 4 << 20, DiskConfig.DEFAULT);
        b.faults(new DiskFaults(false, true, false));
        copier = new RegionCopier("t", RegionCopier.Config.DEFAULT, IoTimer.shared());
        CompletableFuture<CopyResult> done = new CompletableFuture<>();
        copier.copy(src, 0, List.of(new CopyTarget(a, 0), new CopyTarget(b, 0)), 256 * 1024, done::complete);
        CopyResult r = await(done);
        assertThat(r.ok()).isFalse();
        assertThat(r.failedTargets()).containsExactly(1);
    }

    @Test
    void manyJobsFromManyThreadsAllComplete() throws Exception {
        Disk src = Disk.memory("src", 16 << 20, DiskConfig.DEFAULT);
        Disk a = Disk.memory("a", 16 << 20, DiskConfig.DEFAULT);
        SyncIo.write(src, 0, random(16 << 20, 3));
        copier = new RegionCopier("t", RegionCopier.Config.DEFAULT.withChunkBytes(4096), IoTimer.shared());
        List<CompletableFuture<CopyResult>> all = new java.util.ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(4)) {
            for (int i = 0; i < 256; i++) {
                long off = i * 65536L;
                CompletableFuture<CopyResult> f = new CompletableFuture<>();
                all.add(f);
                pool.execute(() -> copier.copy(src, off, List.of(new CopyTarget(a, off)), 65536, f::complete));
            }
        }
        for (var f : all) {
            assertThat(await(f).ok()).isTrue();
        }
        assertThat(read(a, 0, 16 << 20).mismatch(random(16 << 20, 3))).isEqualTo(-1);
    }

    @Test
    void withTheTimerStrategyWritesWaitForTheUnplugTimer() throws Exception {
        ManualClock clock = new ManualClock();
        Disk src = Disk.memory("src", 1 << 20, DiskConfig.DEFAULT);
        Disk a = Disk.memory("a", 1 << 20, DiskConfig.DEFAULT);
        copier = new RegionCopier("t", RegionCopier.Config.DEFAULT.withDispatch(BatchDispatch.Kind.TIMER), clock);
        CompletableFuture<CopyResult> done = new CompletableFuture<>();
        copier.copy(src, 0, List.of(new CopyTarget(a, 0)), 4096, done::complete);
        // The read sits in the source's plugged queue until the timer fires, then the write in the target's.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> clock.pending() == 1);
        assertThat(done).isNotDone();
        clock.advance(3_000_000);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> clock.pending() == 1);
        assertThat(done).isNotDone();
        clock.advance(3_000_000);
        assertThat(await(done).ok()).isTrue();
        assertThat(copier.timerUnplugs()).isEqualTo(2);
    }

    @Test
    void withTheExplicitStrategyNoTimerIsInvolved() throws Exception {
        ManualClock clock = new ManualClock();
        Disk src = Disk.memory("src", 1 << 20, DiskConfig.DEFAULT);
        Disk a = Disk.memory("a", 1 << 20, DiskConfig.DEFAULT);
        copier = new RegionCopier("t", RegionCopier.Config.DEFAULT, clock);
        CompletableFuture<CopyResult> done = new CompletableFuture<>();
        copier.copy(src, 0, List.of(new CopyTarget(a, 0)), 4096, done::complete);
        assertThat(await(done).ok()).isTrue();
        assertThat(clock.pending()).isZero();
        assertThat(copier.timerUnplugs()).isZero();
    }

    @Test
    void theThrottleSpacesChunksByTheRate() {
        Throttle t = new Throttle(1_000_000, 0);
        assertThat(t.acquire(500_000, 0)).as("the bucket starts empty").isEqualTo(500_000_000L);
        assertThat(t.acquire(500_000, 500_000_000L)).isZero();
        assertThat(t.acquire(1_000_000, 500_000_000L)).isEqualTo(1_000_000_000L);
        t.rate(0);
        assertThat(t.acquire(1 << 30, 0)).as("no limit").isZero();
    }
}
