package io.blockwork.engine.dm.targets.mirror;

import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.assertSame;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.awaitInSync;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.random;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.read;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.ManualClock;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The disk log: its documented format, marks reaching the log before data reaches the legs, and
 * a reload after a crash recovering exactly the regions the log had dirty.
 */
@Tag("unit")
class MirrorDiskLogTest {

    private static final int REGION = 64 * 1024;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Regions are recorded clean only when this clock says they have been quiet long enough. */
    private final ManualClock clock = new ManualClock();
    private final DmTestDevices devs = new DmTestDevices();
    @RegisterExtension
    final MirrorFixture fx = new MirrorFixture(devs);
    private Disk d0;
    private Disk d1;
    private Disk log;

    @BeforeEach
    void disks() {
        devs.config(devs.config().withClock(clock::nanos).withTimer(clock));
        d0 = devs.disk("d0", 4L << 20);
        d1 = devs.disk("d1", 4L << 20);
        log = devs.disk("log", 1L << 20);
    }

    private boolean cleanBit(long region) {
        MemorySegment block = read(log, 4096, 4096);
        return (block.get(ValueLayout.JAVA_BYTE, region / 8) & (1 << (region % 8))) != 0;
    }

    @Test
    void theLogIsWrittenInTheDocumentedFormat() {
        MappedDevice m = fx.create("m", "0 8192 mirror disk 2 log 128 2 d0 0 d1 0\n");
        awaitInSync(target(m));
        MemorySegment h = read(log, 0, 4096);
        assertThat(new String(h.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII)).isEqualTo("BWMIRLOG");
        assertThat(h.get(U32, 8)).as("version").isEqualTo(1);
        assertThat(h.get(U32, 12)).as("bitmap offset").isEqualTo(4096);
        assertThat(h.get(U64, 16)).as("region size").isEqualTo(128);
        assertThat(h.get(U64, 24)).as("region count").isEqualTo(64);
        assertThat(h.get(U64, 32)).as("target length").isEqualTo(8192);
        assertThat(h.get(U32, 40)).as("legs").isEqualTo(2);
        assertThat(h.get(U32, 44)).as("legs fingerprint").isEqualTo(DiskLog.fingerprint(
                List.of(new Leg(0, d0, 0), new Leg(1, d1, 0))));
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(h.asSlice(0, 48).toArray(ValueLayout.JAVA_BYTE));
        assertThat(h.get(U32, 48)).as("header checksum").isEqualTo((int) crc.getValue());
        MemorySegment bitmap = read(log, 4096, 4096);
        assertThat(bitmap.get(U64, 0)).as("64 regions recovered, all clean").isEqualTo(-1L);
        assertThat(bitmap.get(U64, 8)).as("no bits past the region count").isZero();

        SyncIo.write(m, REGION * 5L, random(1, 4096));
        assertThat(cleanBit(5)).as("marked before the write went out").isFalse();
        assertThat(cleanBit(4)).isTrue();
        clock.advance(MirrorWorker.QUIET_NANOS);
        await().atMost(MirrorFixture.PATIENCE).until(() -> cleanBit(5));
        assertThat(target(m).regionState(5)).isEqualTo(RegionState.CLEAN);
    }

    @Test
    void aRegionIsRecordedCleanOnlyOnceEveryLegHoldsItsWritesDurably() {
        MappedDevice m = fx.create("m", "0 8192 mirror disk 3 log 128 nosync 2 d0 0 d1 0\n");
        SyncIo.write(m, REGION * 5L, random(4, 4096)); // no FUA, no flush: in the legs' caches
        clock.advance(MirrorWorker.QUIET_NANOS);
        await().atMost(MirrorFixture.PATIENCE).until(() -> cleanBit(5));
        d1.powerCut(); // had the legs not been flushed first, leg 1 would now differ from leg 0 in a clean region
        assertSame(read(d1, REGION * 5L, 4096), random(4, 4096), "leg 1 after a power cut");
    }

    @Test
    void aRegionIsMarkedInTheLogBeforeItsDataReachesALeg() {
        List<String> order = new CopyOnWriteArrayList<>();
        for (Disk d : new Disk[] {log, d0, d1}) {
            String name = "t" + (d == log ? "log" : d.name().substring(1));
            devs.add(new TapDevice(name, d, b -> {
                if (b.op() != BioOp.READ && b.op() != BioOp.FLUSH) {
                    order.add(name + " " + b.op() + " " + b.flags());
                }
            }));
        }
        MappedDevice m = fx.create("m", "0 8192 mirror disk 3 tlog 128 nosync 2 t0 0 t1 0\n");
        order.clear();
        SyncIo.write(m, REGION * 3L, random(2, 4096), BioFlags.FUA);
        assertThat(order).containsExactly("tlog WRITE FUA", "t0 WRITE FUA", "t1 WRITE FUA");
        order.clear();
        SyncIo.write(m, REGION * 3L + 4096, random(3, 4096));
        assertThat(order).as("the region is dirty already: no log write").containsExactly("t0 WRITE NONE", "t1 WRITE NONE");
    }

    @Test
    void afterACrashOnlyTheRegionsTheLogHadDirtyAreRecovered() {
        String table = "0 8192 mirror disk 2 log 128 2 d0 0 d1 0\n";
        MappedDevice a = fx.create("a", table);
        awaitInSync(target(a));
        MirrorFixture.fill(a, 0, 4L << 20, 11);
        clock.advance(MirrorWorker.QUIET_NANOS);
        await().atMost(MirrorFixture.PATIENCE).until(() -> read(log, 4096, 4096).get(U64, 0) == -1L);

        // The crash: writes to regions 3 and 10 were acknowledged, then the machine died with
        // regions 3 and 10 dirty in the log. Leg 1 lost region 3's write (its cache); someone
        // also scribbled on leg 1 in region 20, which the log has clean.
        SyncIo.write(a, REGION * 3L, random(12, 4096), BioFlags.FUA);
        SyncIo.write(a, REGION * 10L, random(13, 4096), BioFlags.FUA);
        assertThat(cleanBit(3) || cleanBit(10)).isFalse();
        MemorySegment image = read(log, 0, 8192);
        a.remove(); // a clean shutdown would record them clean: put the crash image back after it
        SyncIo.write(log, 0, image, BioFlags.FUA);
        SyncIo.write(d1, REGION * 3L, random(14, 4096), BioFlags.FUA);
        SyncIo.write(d1, REGION * 20L, random(15, 4096), BioFlags.FUA);

        MappedDevice b = fx.create("b", "0 8192 mirror disk 2 log 128 2 d0 0 d1 0 2 io_throttle 1\n");
        MirrorTarget t = target(b);
        assertThat(t.syncedRegions()).as("the log's dirty regions are out of sync at load").isEqualTo(62);
        await().atMost(MirrorFixture.PATIENCE).until(() -> t.regionState(3) == RegionState.RECOVERING
                && t.regionState(10) == RegionState.RECOVERING);
        assertThat(t.syncedRegions()).as("held at the throttle: nothing else to recover").isEqualTo(62);
        b.message(0, "io_throttle 0");
        awaitInSync(t);
        assertSame(read(d1, REGION * 3L, REGION), read(d0, REGION * 3L, REGION), "region 3 recovered");
        assertSame(read(d1, REGION * 3L, 4096), random(12, 4096), "the acknowledged write, on leg 1 again");
        assertThat(read(d1, REGION * 20L, 4096).mismatch(read(d0, REGION * 20L, 4096)))
                .as("region 20 was clean in the log: not copied").isNotEqualTo(-1L);
    }

    @Test
    void aLogWrittenForOtherLegsIsNotTrusted() {
        devs.disk("d2", 4L << 20);
        MappedDevice a = fx.create("a", "0 8192 mirror disk 2 log 128 2 d0 0 d1 0\n");
        awaitInSync(target(a));
        a.remove();
        MappedDevice b = fx.create("b", "0 8192 mirror disk 2 log 128 2 d0 0 d2 0 2 io_throttle 1\n");
        assertThat(target(b).syncedRegions()).as("a new leg: every region is copied").isZero();
    }

    @Test
    void syncAndNosyncStartANewLogAtResume() {
        MappedDevice a = fx.create("a", "0 8192 mirror disk 3 log 128 nosync 2 d0 0 d1 0\n");
        assertThat(target(a).syncedRegions()).isEqualTo(64);
        a.load("0 8192 mirror disk 3 log 128 sync 2 d0 0 d1 0 2 io_throttle 1\n", devs);
        a.resume();
        assertThat(target(a).syncedRegions()).isZero();
        assertThat(a.statusText()).isEqualTo("0 8192 mirror 2 d0 d1 0/64 1 AA 3 disk log A\n");
    }
}
