package io.blockwork.pool.volume.web;

import static io.blockwork.support.PoolRequests.createPool;
import static io.blockwork.support.PoolRequests.createVolume;
import static io.blockwork.support.PoolRequests.deleteVolume;
import static io.blockwork.support.PoolRequests.getPool;
import static io.blockwork.support.PoolRequests.resize;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.createDisk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.BlockIoException;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.support.AppTest;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Issue 7, acceptance 1: volumes are created, extended, reduced and deleted while a verifying
 * workload writes and reads a volume of the same pool. Its pool disk has a service time, so
 * I/O is in flight whenever a table is swapped. No I/O fails during an extend or a reduce that
 * keeps the workload's region, the workload reads back exactly what it wrote, and the data
 * before the cut point stays as it was.
 */
@AppTest
class VolumeUnderIoTest {

    private static final int MIB = 1 << 20;
    private static final Duration PATIENCE = Duration.ofMinutes(2);

    @Autowired
    MockMvc mvc;
    @Autowired
    DeviceRegistry registry;

    private void slowDisk(String name, String size) throws Exception {
        mvc.perform(createDisk("{\"name\":\"" + name + "\",\"type\":\"memory\",\"size\":\"" + size + "\","
                + "\"latency\":{\"read\":\"40us\",\"write\":\"40us\",\"jitter\":\"20us\"}}")).andExpect(status().isCreated());
    }

    /** A workload until stopped: 4 KiB random writes and reads with verification, over [0, 8 MiB). */
    private static Workload verifying(BlockDevice device, boolean verify) {
        return new Workload(device, WorkloadSpec.builder(RwMode.RANDRW, 4096).rwMixRead(30).jobs(2).ioDepth(8)
                .offset(0).size(4 * MIB).offsetIncrement(4 * MIB).runtime(TimeUnit.MINUTES.toNanos(10))
                .verify(verify).seed(71).build(), Thread.ofPlatform().name("vol-io-", 0).factory());
    }

    /** Waits until the device completed {@code more} more writes: the operation before overlapped I/O. */
    private static void awaitMoreWrites(BlockDevice device, long more) {
        long target = device.counters().writes() + more;
        await().atMost(PATIENCE).until(() -> device.counters().writes() >= target);
    }

    private static byte[] random(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] read(BlockDevice device, long offset, int length) {
        byte[] b = new byte[length];
        SyncIo.read(device, offset, MemorySegment.ofArray(b));
        return b;
    }

    @Test
    void createExtendReduceAndDeleteUnderVerifiedIo() throws Exception {
        slowDisk("vio-pv", "64MiB");
        mvc.perform(createPool("vio-pool", "vio-pv", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createVolume("vio-pool", "vio-a", "16MiB")).andExpect(status().isCreated());
        BlockDevice a = registry.device("vio-a");
        byte[] kept = random(8 * MIB, 1);
        SyncIo.write(a, 8 * MIB, MemorySegment.ofArray(kept));

        Workload load = verifying(a, true);
        byte[] grown = random(16 * MIB, 3);
        try (ExecutorService runner = Executors.newSingleThreadExecutor()) {
            Future<WorkloadResult> running = runner.submit(() -> load.execute(s -> { }));
            awaitMoreWrites(a, 300);

            // create and write another volume of the pool while the workload runs
            mvc.perform(createVolume("vio-pool", "vio-b", "8MiB")).andExpect(status().isCreated());
            BlockDevice b = registry.device("vio-b");
            byte[] other = random(8 * MIB, 2);
            SyncIo.write(b, 0, MemorySegment.ofArray(other));
            awaitMoreWrites(a, 300);

            // extend: 16 MiB -> 32 MiB (b took the extents right after a: a gets a second segment)
            mvc.perform(resize("vio-pool", "vio-a", "+16MiB", false)).andExpect(status().isOk())
                    .andExpect(jsonPath("$.sizeBytes").value(32 * MIB)).andExpect(jsonPath("$.segmentCount").value(2));
            assertThat(a.sizeBytes()).isEqualTo(32L * MIB);
            SyncIo.write(a, 16 * MIB, MemorySegment.ofArray(grown));
            awaitMoreWrites(a, 300);

            // reduce: 32 MiB -> 24 MiB, cutting into the grown part; the workload's region is kept
            mvc.perform(resize("vio-pool", "vio-a", "24MiB", false)).andExpect(problem(409, "shrink-not-confirmed"));
            mvc.perform(resize("vio-pool", "vio-a", "24MiB", true)).andExpect(status().isOk())
                    .andExpect(jsonPath("$.sizeBytes").value(24 * MIB));
            assertThat(a.sizeBytes()).isEqualTo(24L * MIB);
            awaitMoreWrites(a, 300);

            // delete the other volume
            assertThat(read(b, 0, 8 * MIB)).isEqualTo(other);
            mvc.perform(deleteVolume("vio-pool", "vio-b")).andExpect(status().isNoContent());
            awaitMoreWrites(a, 300);

            load.stop();
            WorkloadResult result = running.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(result.errors()).as("I/O errors: %s", result.firstError()).isZero();
            assertThat(result.verify().mismatches()).as("%s", result.verify().firstMismatches()).isZero();
            assertThat(result.verify().blocksChecked()).isPositive();
            assertThat(result.write().ios()).isGreaterThan(1500);
        }
        assertThat(a.counters().errors()).isZero();
        // before the cut point: the data written before the extend, and the grown part up to the cut
        assertThat(read(a, 8 * MIB, 8 * MIB)).isEqualTo(kept);
        assertThat(read(a, 16 * MIB, 8 * MIB)).isEqualTo(Arrays.copyOf(grown, 8 * MIB));
        mvc.perform(getPool("vio-pool")).andExpect(jsonPath("$.extents.used").value(24))
                .andExpect(jsonPath("$.extents.free").value(40)).andExpect(jsonPath("$.volumes[0]").value("vio-a"));
    }

    /**
     * A volume deleted under its own I/O: the delete waits for the I/O in flight, the I/O still
     * coming fails (nothing hangs), and when its extents go to a new volume, nothing the old
     * device is still asked to do reaches them.
     */
    @Test
    void deleteUnderIoFailsTheIoStillComingAndFreesTheExtents() throws Exception {
        slowDisk("vdel-pv", "16MiB");
        mvc.perform(createPool("vdel-pool", "vdel-pv", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createVolume("vdel-pool", "vdel-old", "8MiB")).andExpect(status().isCreated());
        BlockDevice old = registry.device("vdel-old");

        Workload load = verifying(old, false);
        WorkloadResult result;
        try (ExecutorService runner = Executors.newSingleThreadExecutor()) {
            Future<WorkloadResult> running = runner.submit(() -> load.execute(s -> { }));
            awaitMoreWrites(old, 300);
            mvc.perform(deleteVolume("vdel-pool", "vdel-old")).andExpect(status().isNoContent());
            // never stopped: the workload ends because its I/O fails
            result = running.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
        assertThat(result.errors()).isPositive();
        assertThat(registry.find("vdel-old")).isEmpty();
        mvc.perform(getPool("vdel-pool")).andExpect(jsonPath("$.extents.free").value(16));

        mvc.perform(createVolume("vdel-pool", "vdel-new", "8MiB")).andExpect(status().isCreated())
                .andExpect(jsonPath("$.segments[0].poolExtents.first").value(0));
        BlockDevice fresh = registry.device("vdel-new");
        byte[] data = random(8 * MIB, 4);
        SyncIo.write(fresh, 0, MemorySegment.ofArray(data));
        assertThatThrownBy(() -> SyncIo.write(old, 0, MemorySegment.ofArray(new byte[4096])))
                .isInstanceOf(BlockIoException.class);
        assertThat(read(fresh, 0, 8 * MIB)).isEqualTo(data);
    }
}
