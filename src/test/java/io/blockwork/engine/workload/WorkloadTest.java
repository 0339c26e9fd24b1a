package io.blockwork.engine.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.disk.LatencyModel;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class WorkloadTest {

    @Test
    void aRandomWriteRunWithVerifyFindsEveryBlockIntact() {
        Disk disk = Disk.memory("w", 8L << 20, DiskConfig.DEFAULT);
        WorkloadResult r = Workload.run(disk, WorkloadSpec.builder(RwMode.RANDWRITE, 4096)
                .jobs(2).ioDepth(8).ioLimit(3000).verify(true).build());
        assertThat(r.errors()).isZero();
        assertThat(r.write().ios()).isEqualTo(6000);
        assertThat(r.verify().blocksChecked()).isPositive();
        assertThat(r.verify().mismatches()).isZero();
        assertThat(r.write().latency().p99Nanos()).isPositive();
    }

    @Test
    void verifyReportsBlocksThatChangedBehindItsBack() {
        // A device that silently drops every 100th write: a lost write must show as a mismatch.
        Disk disk = Disk.memory("w", 4L << 20, DiskConfig.DEFAULT);
        AtomicLong n = new AtomicLong();
        var lossy = new AbstractBlockDevice("lossy") {
            @Override
            protected void dispatch(Bio bio) {
                if (bio.op() == BioOp.WRITE && n.incrementAndGet() % 100 == 0) {
                    bio.endio();
                } else {
                    disk.submit(bio.remap(bio.offset()));
                    bio.endio();
                }
            }

            @Override
            public long sizeBytes() {
                return disk.sizeBytes();
            }

            @Override
            public DeviceLimits limits() {
                return disk.limits();
            }
        };
        WorkloadResult r = Workload.run(lossy, WorkloadSpec.builder(RwMode.WRITE, 4096).verify(true).build());
        assertThat(r.verify().mismatches()).isEqualTo(10);
        // The lost writes were each block's first, so the blocks still hold zeros.
        assertThat(r.verify().firstMismatches()).first().asString().contains("no verify header");
    }

    @Test
    void fsyncIssuesAFlushEveryNWrites() {
        Disk disk = Disk.memory("w", 4L << 20, DiskConfig.writeback());
        WorkloadResult r = Workload.run(disk, WorkloadSpec.builder(RwMode.RANDWRITE, 4096)
                .ioDepth(4).ioLimit(400).fsync(4).build());
        assertThat(r.flush().ios()).isEqualTo(100);
        assertThat(disk.mediaFlushes()).isEqualTo(100);
    }

    @Test
    void syncWritesUseFua() {
        Disk disk = Disk.memory("w", 4L << 20, DiskConfig.writeback());
        Workload.run(disk, WorkloadSpec.builder(RwMode.WRITE, 4096).ioLimit(10).sync(true).build());
        disk.powerCut();
        assertThat(disk.allocatedBytes()).as("FUA writes are durable").isEqualTo(10 * 4096);
    }

    @Test
    void randrwMixesReadsAndWritesInProportion() {
        Disk disk = Disk.memory("w", 16L << 20, DiskConfig.DEFAULT);
        WorkloadResult r = Workload.run(disk, WorkloadSpec.builder(RwMode.RANDRW, 4096)
                .rwMixRead(70).ioLimit(10_000).verify(true).build());
        double readShare = r.read().ios() / 10_000.0;
        assertThat(readShare).isBetween(0.65, 0.75);
        assertThat(r.verify().mismatches()).isZero();
    }

    @Test
    void completionsFromAnotherThreadAreCollected() {
        Disk disk = Disk.memory("w", 4L << 20,
                DiskConfig.DEFAULT.withLatency(new LatencyModel(20_000, 20_000, 0, 5_000)));
        WorkloadResult r = Workload.run(disk, WorkloadSpec.builder(RwMode.RANDREAD, 4096)
                .ioDepth(16).ioLimit(2000).build());
        assertThat(r.read().ios()).isEqualTo(2000);
        assertThat(r.read().latency().p50Nanos()).isGreaterThanOrEqualTo(15_000);
    }

    @Test
    void aJobStopsAtItsFirstErrorAndReportsIt() {
        Disk disk = Disk.memory("w", 4L << 20, DiskConfig.DEFAULT);
        disk.faults(new DiskFaults(false, true, false));
        WorkloadResult r = Workload.run(disk, WorkloadSpec.builder(RwMode.WRITE, 4096).ioLimit(100).build());
        assertThat(r.errors()).isEqualTo(1);
        assertThat(r.firstError()).contains(IoStatus.IO_ERROR.name());
    }

    @Test
    void badGeometryIsRefusedUpFront() {
        Disk disk = Disk.memory("w", 1L << 20, DiskConfig.DEFAULT.withLogicalBlockSize(4096));
        assertThatThrownBy(() -> Workload.run(disk, WorkloadSpec.builder(RwMode.READ, 512).build()))
                .hasMessageContaining("logical block size");
        assertThatThrownBy(() -> Workload.run(disk, WorkloadSpec.builder(RwMode.READ, 4096).size(2L << 20).build()))
                .hasMessageContaining("past the device");
        assertThatThrownBy(() -> Workload.run(disk, WorkloadSpec.builder(RwMode.WRITE, 4096).jobs(2)
                .size(1L << 19).offsetIncrement(4096).verify(true).build()))
                .hasMessageContaining("disjoint");
    }

    @Test
    void fuaEveryNWritesMakesEveryNthWriteDurable() {
        Disk disk = Disk.memory("w", 4L << 20, DiskConfig.writeback());
        Workload.run(disk, WorkloadSpec.builder(RwMode.WRITE, 4096).ioLimit(12).fuaEvery(4).build());
        disk.powerCut();
        assertThat(disk.allocatedBytes()).as("writes 4, 8 and 12 carried FUA").isEqualTo(3 * 4096);
    }

    @Test
    void aRateLimitPacesTheJob() {
        Disk disk = Disk.memory("w", 4L << 20, DiskConfig.DEFAULT);
        // 100 I/Os at 200 IOPS take about half a second, however fast the disk is
        WorkloadResult r = Workload.run(disk, WorkloadSpec.builder(RwMode.RANDREAD, 4096).ioDepth(4)
                .ioLimit(100).rateIops(200).build());
        assertThat(r.read().ios()).isEqualTo(100);
        assertThat(r.elapsedNanos()).isGreaterThanOrEqualTo(490_000_000L);
        WorkloadResult bytes = Workload.run(disk, WorkloadSpec.builder(RwMode.RANDREAD, 4096)
                .ioLimit(50).rate(100 * 4096).build());
        assertThat(bytes.elapsedNanos()).isGreaterThanOrEqualTo(490_000_000L);
    }

    @Test
    void cancelEndsEveryJobPromptlyAndSkipsTheVerifyPass() throws Exception {
        Disk disk = Disk.memory("w", 64L << 20, DiskConfig.DEFAULT);
        Workload w = new Workload(disk, WorkloadSpec.builder(RwMode.RANDWRITE, 4096).jobs(2).ioDepth(4)
                .offsetIncrement(32L << 20).size(32L << 20).runtime(3600 * WorkloadSpec.SECOND).verify(true).build(),
                Thread.ofPlatform().factory());
        var running = java.util.concurrent.CompletableFuture.supplyAsync(() -> w.execute(s -> { }));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).until(() -> disk.counters().writes() > 1000);
        w.cancel();
        WorkloadResult r = running.get(1, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(r.cancelled()).isTrue();
        assertThat(r.write().ios()).isPositive();
        assertThat(r.verify().blocksChecked()).as("no read-back after a cancel").isZero();
    }

    @Test
    void aPacedJobHearsACancelWhileWaitingForItsNextTurn() throws Exception {
        Disk disk = Disk.memory("w", 4L << 20, DiskConfig.DEFAULT);
        Workload w = new Workload(disk, WorkloadSpec.builder(RwMode.RANDREAD, 4096).rateIops(1)
                .runtime(3600 * WorkloadSpec.SECOND).build(), Thread.ofPlatform().factory());
        var running = java.util.concurrent.CompletableFuture.supplyAsync(() -> w.execute(s -> { }));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).until(() -> disk.counters().reads() == 1);
        w.cancel();
        assertThat(running.get(1, java.util.concurrent.TimeUnit.SECONDS).cancelled()).isTrue();
    }
}
