package io.blockwork.engine.dm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Acceptance 3 under load. A verifying workload (random reads and writes with fsyncs, four jobs,
 * eight I/Os in flight each, completions on the timer thread) runs while the device's data moves
 * back and forth between two disks, 30 times, the way a volume manager moves an extent without
 * a mirror: suspend, copy the whole area to the other disk, load a table pointing there,
 * resume. The tables vary (one linear target, sixteen, a delay target holding writes back for a
 * millisecond) and some suspends are noflush.
 *
 * <p>Each disk sits under a delay device that lands writes a millisecond after they are
 * submitted, and the copy reads the disk itself. So the data survives only if suspend really
 * waits for every write in flight (one landing after the copy would be lost) and held I/O goes
 * through the new table; a bio lost on the way would hang a job, hence the timeout. Every I/O
 * must succeed and every block read back must be the last one written.
 */
@Tag("unit")
class TableSwapUnderLoadTest {

    private static final long SECTORS = 32768; // 16 MiB

    private static String[] tablesOn(String disk) {
        StringBuilder pieces = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            pieces.append(i * 2048).append(" 2048 linear ").append(disk).append(' ').append(i * 2048).append('\n');
        }
        return new String[] {
            "0 " + SECTORS + " linear " + disk + " 0\n",
            pieces.toString(),
            "0 " + SECTORS + " delay " + disk + " 0 0 " + disk + " 0 1\n",
        };
    }

    private static void copy(BlockDevice from, BlockDevice to) {
        MemorySegment buf = MemorySegment.ofArray(new byte[1 << 20]);
        for (long off = 0; off < SECTORS * 512; off += buf.byteSize()) {
            SyncIo.read(from, off, buf);
            SyncIo.write(to, off, buf);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void movingTheDataBetweenDisksUnderLoadLosesAndTearsNothing() throws Exception {
        DmTestDevices devs = new DmTestDevices();
        DiskConfig slow = DiskConfig.writeback().withLatency(new LatencyModel(10_000, 20_000, 50_000, 5_000));
        BlockDevice[] disks = {devs.disk("d0", 16L << 20, slow), devs.disk("d1", 16L << 20, slow)};
        devs.create("late0", "0 " + SECTORS + " delay d0 0 0 d0 0 1\n");
        devs.create("late1", "0 " + SECTORS + " delay d1 0 0 d1 0 1\n");
        MappedDevice dev = devs.create("vol", tablesOn("late0")[0]);
        Workload load = new Workload(dev, WorkloadSpec.builder(RwMode.RANDRW, 4096).rwMixRead(30)
                .jobs(4).ioDepth(8).fsync(16).verify(true).runtime(100 * WorkloadSpec.SECOND).build(),
                Thread.ofPlatform().name("swap-load-", 0).factory());
        CompletableFuture<WorkloadResult> run = CompletableFuture.supplyAsync(() -> load.execute(s -> {}));
        await().atMost(Duration.ofSeconds(30)).until(() -> dev.counters().writes() > 500);

        long events = dev.info().eventNumber();
        int moves = 30;
        int on = 0;
        for (int i = 1; i <= moves; i++) {
            int to = 1 - on;
            dev.suspend(i % 3 == 0);
            long landed = disks[on].counters().writes();
            copy(disks[on], disks[to]);
            assertThat(disks[on].counters().writes()).as("no write lands while suspended").isEqualTo(landed);
            dev.load(tablesOn("late" + to)[i % 3], devs);
            dev.resume();
            on = to;
            long writes = dev.counters().writes();
            await().atMost(Duration.ofSeconds(30)).until(() -> dev.counters().writes() > writes + 20);
        }
        load.stop();
        WorkloadResult r = run.get();

        assertThat(r.errors()).as(r.firstError()).isZero();
        assertThat(r.verify().mismatches()).as(String.join("; ", r.verify().firstMismatches())).isZero();
        assertThat(r.verify().blocksChecked()).isGreaterThan(1000);
        assertThat(r.flush().ios()).isPositive();
        assertThat(dev.info().eventNumber()).isEqualTo(events + moves);
        assertThat(dev.tableText()).isEqualTo(tablesOn("late" + on)[moves % 3]);
        assertThat(dev.inFlight()).isZero();
    }
}
