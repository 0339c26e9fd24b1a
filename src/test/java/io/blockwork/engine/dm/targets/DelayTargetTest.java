package io.blockwork.engine.dm.targets;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.ManualClock;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dm-delay on a hand-cranked clock: each kind waits its own time on its own device. */
@Tag("unit")
class DelayTargetTest {

    private static final long MS = 1_000_000;

    private final ManualClock clock = new ManualClock();
    private final DmTestDevices devs = new DmTestDevices();
    private final Disk reads = devs.disk("r", 4L << 20);
    private final Disk writes = devs.disk("w", 4L << 20);

    DelayTargetTest() {
        devs.config(devs.config().withTimer(clock));
    }

    private static CompletableFuture<IoStatus> write(MappedDevice d, long offset, byte fill) {
        CompletableFuture<IoStatus> f = new CompletableFuture<>();
        MemorySegment data = MemorySegment.ofArray(new byte[4096]);
        data.fill(fill);
        d.submit(Bio.write(offset, data, BioFlags.NONE, b -> f.complete(b.status())));
        return f;
    }

    private static CompletableFuture<IoStatus> read(MappedDevice d, long offset, MemorySegment into) {
        CompletableFuture<IoStatus> f = new CompletableFuture<>();
        d.submit(Bio.read(offset, into, b -> f.complete(b.status())));
        return f;
    }

    @Test
    void writesWaitTheirDelayOnTheWriteDeviceAndReadsTheirsOnTheReadDevice() throws Exception {
        MappedDevice d = devs.create("slow", "0 4096 delay r 0 5 w 1024 50\n");
        SyncIo.write(reads, 8192, MemorySegment.ofArray(new byte[4096]).fill((byte) 3));

        CompletableFuture<IoStatus> w = write(d, 0, (byte) 7);
        MemorySegment into = MemorySegment.ofArray(new byte[4096]);
        CompletableFuture<IoStatus> r = read(d, 8192, into);
        assertThat(d.statusText()).isEqualTo("0 4096 delay 1 1 0\n");

        clock.advance(5 * MS);
        assertThat(r.get()).isEqualTo(IoStatus.OK);
        assertThat(into.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 3);
        assertThat(w).as("the write waits 50 ms").isNotDone();
        assertThat(writes.counters().writes()).isZero();

        clock.advance(45 * MS);
        assertThat(w.get()).isEqualTo(IoStatus.OK);
        MemorySegment landed = MemorySegment.ofArray(new byte[4096]);
        SyncIo.read(writes, 1024 * 512L, landed);
        assertThat(landed.mismatch(MemorySegment.ofArray(new byte[4096]).fill((byte) 7))).isEqualTo(-1L);
        assertThat(d.statusText()).isEqualTo("0 4096 delay 0 0 0\n");
    }

    @Test
    void flushesUseTheFlushClassOfTheNineArgumentForm() throws Exception {
        MappedDevice d = devs.create("slow", "0 4096 delay r 0 0 w 0 0 w 0 20\n");
        CompletableFuture<IoStatus> f = new CompletableFuture<>();
        d.submit(Bio.flush(b -> f.complete(b.status())));
        assertThat(d.statusText()).isEqualTo("0 4096 delay 0 0 1\n");
        assertThat(writes.counters().flushes()).isZero();
        clock.advance(20 * MS);
        assertThat(f.get()).isEqualTo(IoStatus.OK);
        assertThat(writes.counters().flushes()).isEqualTo(1);
        assertThat(reads.counters().flushes()).isZero();
    }

    @Test
    void suspendSendsDelayedBiosOnAtOnceAndResumeDelaysAgain() throws Exception {
        MappedDevice d = devs.create("slow", "0 4096 delay w 0 1000\n");
        CompletableFuture<IoStatus> w = write(d, 0, (byte) 1);
        d.suspend();
        assertThat(w.get()).as("presuspend released it; no time passed").isEqualTo(IoStatus.OK);
        assertThat(d.info().state()).isEqualTo(DeviceInfo.State.SUSPENDED);
        d.resume();
        CompletableFuture<IoStatus> again = write(d, 4096, (byte) 2);
        assertThat(again).isNotDone();
        clock.advance(1000 * MS);
        assertThat(again.get()).isEqualTo(IoStatus.OK);
        assertThat(clock.pending()).as("the timer entry of the released bio fired and did nothing").isZero();
    }
}
