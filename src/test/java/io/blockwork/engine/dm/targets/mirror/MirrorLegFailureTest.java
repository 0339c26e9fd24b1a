package io.blockwork.engine.dm.targets.mirror;

import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.assertSame;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.read;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.target;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.ManualClock;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.workload.RwMode;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Acceptance 3: a leg dies in the middle of concurrent verified writes (with fsyncs) and no
 * acknowledged write is lost: every block reads back as last written, from the surviving leg.
 * The leg dies at a fixed write, counted below it, so the moment is the same on every run.
 */
@Tag("unit")
class MirrorLegFailureTest {

    private static final long SIZE = 16L << 20;

    private final DmTestDevices devs = new DmTestDevices();
    @RegisterExtension
    final MirrorFixture fx = new MirrorFixture(devs);

    @ParameterizedTest(name = "the dying leg is leg {0}")
    @ValueSource(ints = {0, 1})
    void aLegDyingUnderVerifiedWritesLosesNoAcknowledgedWrite(int dying) {
        Disk d0 = devs.disk("d0", SIZE);
        Disk d1 = devs.disk("d1", SIZE);
        Disk victim = dying == 0 ? d0 : d1;
        // From its 3000th write on, the dying leg's disk fails everything.
        devs.add(TapDevice.atWrite("x" + dying, victim, 3000, () -> victim.faults(DiskFaults.ALL)));
        String legs = dying == 0 ? "x0 0 d1 0" : "d0 0 x1 0";
        MappedDevice m = fx.create("m", "0 32768 mirror core 2 128 nosync 2 " + legs + " 1 handle_errors\n");

        WorkloadResult r = Workload.run(m, WorkloadSpec.builder(RwMode.RANDWRITE, 4096).jobs(4).ioDepth(4)
                .fsync(32).ioLimit(2000).verify(true).seed(dying + 1).build());

        assertThat(r.errors()).as("errors seen by the writers: %s", r.firstError()).isZero();
        assertThat(r.write().ios()).isEqualTo(8000);
        assertThat(r.verify().mismatches()).as("%s", r.verify().firstMismatches()).isZero();
        assertThat(r.verify().blocksChecked()).isPositive();
        MirrorTarget t = target(m);
        assertThat(t.health().charAt(dying)).as("health %s", t.health()).isIn('D', 'F');
        assertThat(t.health().charAt(1 - dying)).isEqualTo('A');
        assertThat(t.syncedRegions()).as("regions written after the failure are out of sync").isLessThan(t.regionCount());
        Disk survivor = dying == 0 ? d1 : d0;
        assertSame(read(m, 0, (int) SIZE), read(survivor, 0, (int) SIZE), "the mirror reads the surviving leg");
    }

    @Test
    void aFlakeyLegGoingDownUnderVerifiedWritesLosesNothing() {
        ManualClock clock = new ManualClock();
        devs.config(devs.config().withClock(clock::nanos));
        Disk d0 = devs.disk("d0", SIZE);
        devs.disk("d1", SIZE);
        // The flakey leg is up for 10 s then down; the clock moves when d0 has taken 3000 writes.
        fx.create("fl", "0 32768 flakey d1 0 10 10\n");
        devs.add(TapDevice.atWrite("c0", d0, 3000, () -> clock.advance(10_000_000_000L)));
        MappedDevice m = fx.create("m", "0 32768 mirror core 2 128 nosync 2 c0 0 fl 0 1 handle_errors\n");

        WorkloadResult r = Workload.run(m, WorkloadSpec.builder(RwMode.RANDWRITE, 4096).jobs(4).ioDepth(4)
                .fsync(32).ioLimit(2000).verify(true).seed(7).build());

        assertThat(r.errors()).as("errors seen by the writers: %s", r.firstError()).isZero();
        assertThat(r.verify().mismatches()).as("%s", r.verify().firstMismatches()).isZero();
        assertThat(target(m).health()).matches("A[DF]");
    }
}
