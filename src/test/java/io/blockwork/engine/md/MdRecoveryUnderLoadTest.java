package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 4, acceptance 3: under concurrent verified I/O, one member fails, a spare is added and
 * rebuilt, a check finds the copies identical, then another original member fails; every block
 * still verifies, and the caller never sees an error.
 */
@Tag("unit")
class MdRecoveryUnderLoadTest {

    private static final long MIB = 1L << 20;
    private static final Duration LONG = Duration.ofSeconds(120);
    /**
     * Small arrays and member latency make resync windows and user writes collide often: a window
     * that copied without the barrier would leave stale copies (a mutant without barriers fails
     * the check below).
     */
    private static final DiskConfig DISKS = DiskConfig.writeback().withLatency(new LatencyModel(100_000, 30_000, 0, 20_000));
    private MdFixture f;
    private Workload load;

    @AfterEach
    void stop() {
        if (load != null) {
            load.stop();
        }
        f.array.stop();
    }

    private CompletableFuture<WorkloadResult> startLoad() {
        WorkloadSpec spec = WorkloadSpec.builder(RwMode.RANDRW, 4096).rwMixRead(40).jobs(2).ioDepth(8)
                .verify(true).runtime(LONG.toNanos()).seed(11).build();
        load = new Workload(f.array, spec, Thread.ofPlatform().name("md-load-", 0).factory());
        CompletableFuture<WorkloadResult> result = CompletableFuture.supplyAsync(() -> load.execute(s -> {}));
        awaitMoreWrites(500);
        return result;
    }

    private void awaitMoreWrites(long n) {
        long target = f.array.counters().writes() + n;
        await().atMost(LONG).until(() -> f.array.counters().writes() >= target);
    }

    private MemberState state(String device) {
        return f.array.detail().members().stream().filter(m -> device.equals(m.device())).findFirst()
                .map(MdDetail.MemberDetail::state).orElse(MemberState.REMOVED);
    }

    private void awaitIdle() {
        await().atMost(LONG).until(() -> f.array.detail().sync().action() == SyncAction.IDLE);
    }

    private void checkFindsNoMismatch() {
        f.array.sync("check");
        awaitIdle();
        assertThat(f.array.detail().lastSyncAction()).isEqualTo(SyncAction.CHECK);
        assertThat(f.array.detail().mismatchSectors()).as("mirrors compare identical").isZero();
    }

    private void assertEveryBlockVerified(CompletableFuture<WorkloadResult> running) throws Exception {
        awaitMoreWrites(500);
        load.stop();
        WorkloadResult r = running.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertThat(r.errors()).as("I/O errors seen by the caller: %s", r.firstError()).isZero();
        assertThat(r.verify().mismatches()).as("%s", r.verify().firstMismatches()).isZero();
        assertThat(r.verify().blocksChecked()).isGreaterThan(1000);
    }

    /** Member errors injected at the disks: the array notices them itself. */
    @Test
    void raid10SurvivesAFailureARebuildAndASecondFailure() throws Exception {
        f = MdFixture.of(MdFixture.raid10("n2").withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED), 4, 2 * MIB, DISKS);
        CompletableFuture<WorkloadResult> running = startLoad();

        f.disk(0).faults(DiskFaults.ALL);
        await().atMost(LONG).until(() -> state(f.disk(0).name()) == MemberState.FAULTY);
        assertThat(f.array.detail().state()).contains(ArrayState.DEGRADED);

        Disk spare = f.spare("md-r10-spare", 2 * MIB);
        f.array.add(spare);
        await().atMost(LONG).until(() -> state(spare.name()) == MemberState.IN_SYNC);
        awaitIdle();
        assertThat(f.array.detail().state()).doesNotContain(ArrayState.DEGRADED);
        checkFindsNoMismatch();

        // Disk 1 held the other copy of everything disk 0 held; now only the spare has it.
        f.disk(1).faults(DiskFaults.ALL);
        await().atMost(LONG).until(() -> state(f.disk(1).name()) == MemberState.FAULTY);
        assertEveryBlockVerified(running);
        assertThat(f.array.inactiveReason()).isNull();
    }

    /** Members failed by request, mdadm --fail style. */
    @Test
    void raid1SurvivesAFailureARebuildAndASecondFailure() throws Exception {
        f = MdFixture.of(MdFixture.spec(MdLevel.RAID1).withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED), 2, 4 * MIB, DISKS);
        CompletableFuture<WorkloadResult> running = startLoad();

        f.array.fail(f.disk(0).name());
        Disk spare = f.spare("md-raid1-spare", 4 * MIB);
        f.array.add(spare);
        await().atMost(LONG).until(() -> state(spare.name()) == MemberState.IN_SYNC);
        awaitIdle();
        checkFindsNoMismatch();

        f.array.fail(f.disk(1).name());
        assertThat(f.array.detail().activeDevices()).isEqualTo(1);
        assertEveryBlockVerified(running);
        assertThat(f.array.inactiveReason()).isNull();
    }
}
