package io.blockwork.engine.md;

import static io.blockwork.engine.md.MdManagementTest.random;
import static io.blockwork.engine.md.MdManagementTest.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.DiskFaults;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Degraded operation: member errors are absorbed where a copy survives (the member is marked
 * faulty, the I/O retried elsewhere), writes skip failed members, and an array that has lost data
 * goes inactive and fails I/O.
 */
@Tag("unit")
class MdDegradedIoTest {

    private static final long MIB = 1L << 20;
    private MdFixture f;

    @AfterEach
    void stop() {
        f.array.stop();
    }

    private static final DiskFaults READS = new DiskFaults(true, false, false);
    private static final DiskFaults WRITES = new DiskFaults(false, true, false);
    private static final DiskFaults FLUSHES = new DiskFaults(false, false, true);

    private MemberState state(int disk) {
        String name = f.disk(disk).name();
        return f.array.detail().members().stream().filter(m -> name.equals(m.device())).findFirst().orElseThrow().state();
    }

    @Test
    void aReadErrorIsRetriedOnTheOtherMirrorAndFailsTheMember() {
        f = MdFixture.of(MdFixture.spec(MdLevel.RAID1), 2, 16 * MIB);
        MemorySegment data = random(1, 64 * 1024);
        SyncIo.write(f.array, 0, data);
        // Offset 0 prefers mirror 0: break it for reads only.
        f.disk(0).faults(READS);
        assertThat(read(f.array, 0, data.byteSize()).mismatch(data)).isEqualTo(-1L);
        assertThat(state(0)).isEqualTo(MemberState.FAULTY);
        assertThat(f.array.detail().members()).filteredOn(m -> f.disk(0).name().equals(m.device()))
                .singleElement().satisfies(m -> assertThat(m.faultReason()).isEqualTo("read error"));
        assertThat(f.array.detail().state()).contains(ArrayState.DEGRADED);
        assertThat(f.array.inactiveReason()).isNull();
    }

    @Test
    void aWriteErrorOnOneCopyStillSucceedsAndLaterWritesSkipTheFailedMember() {
        f = MdFixture.of(MdFixture.raid10("n2"), 4, 8 * MIB);
        f.disk(1).faults(WRITES);
        MemorySegment data = random(2, 128 * 1024);
        SyncIo.write(f.array, 0, data);
        assertThat(state(1)).isEqualTo(MemberState.FAULTY);
        long writesBefore = f.disk(1).counters().writes();
        SyncIo.write(f.array, 0, random(3, 128 * 1024));
        SyncIo.flush(f.array);
        assertThat(f.disk(1).counters().writes()).as("writes to the failed member").isEqualTo(writesBefore);
        assertThat(read(f.array, 0, 128 * 1024).mismatch(random(3, 128 * 1024))).isEqualTo(-1L);
    }

    @Test
    void farAndOffsetLayoutsReadEveryBlockWithAnyOneMemberGone() {
        for (String layout : new String[] {"f2", "o2", "n3"}) {
            f = MdFixture.of(MdFixture.raid10(layout), 3, 4 * MIB);
            MemorySegment data = random(4, (int) f.array.sizeBytes());
            SyncIo.write(f.array, 0, data);
            f.disk(1).faults(DiskFaults.ALL);
            assertThat(read(f.array, 0, data.byteSize()).mismatch(data)).as(layout).isEqualTo(-1L);
            assertThat(f.array.inactiveReason()).as(layout).isNull();
            f.array.stop();
        }
        f = MdFixture.of(MdFixture.raid10("n2"), 4, MIB);
    }

    @Test
    void losingBothCopiesOfSomeDataMakesTheArrayInactiveAndFailsIo() {
        f = MdFixture.of(MdFixture.raid10("n2"), 4, 8 * MIB);
        SyncIo.write(f.array, 0, random(5, 256 * 1024));
        // Disks 0 and 1 hold the two copies of chunk 0.
        f.disk(0).faults(DiskFaults.ALL);
        f.disk(1).faults(DiskFaults.ALL);
        MemorySegment buf = MemorySegment.ofArray(new byte[4096]);
        assertThat(SyncIo.execute(f.array, BioOp.READ, 0, 4096, BioFlags.NONE, buf)).isEqualTo(IoStatus.IO_ERROR);
        MdDetail d = f.array.detail();
        assertThat(d.state()).containsExactly(ArrayState.INACTIVE);
        assertThat(d.inactiveReason()).startsWith("data lost: ");
        // Every later request fails, even one whose copies are on healthy disks.
        f.disk(0).faults(DiskFaults.NONE);
        f.disk(1).faults(DiskFaults.NONE);
        assertThat(SyncIo.execute(f.array, BioOp.READ, 64 * 1024, 4096, BioFlags.NONE, buf)).isEqualTo(IoStatus.IO_ERROR);
        assertThat(SyncIo.execute(f.array, BioOp.FLUSH, 0, 0, BioFlags.NONE, null)).isEqualTo(IoStatus.IO_ERROR);
        assertThat(MdStat.render(java.util.List.of(f.array))).contains("md-r10 : inactive raid10");
    }

    @Test
    void twoFailuresInDifferentMirrorPairsKeepTheData() {
        f = MdFixture.of(MdFixture.raid10("n2"), 4, 8 * MIB);
        MemorySegment data = random(6, (int) (2 * MIB));
        SyncIo.write(f.array, 0, data);
        f.disk(0).faults(DiskFaults.ALL);
        f.disk(3).faults(DiskFaults.ALL);
        assertThat(read(f.array, 0, data.byteSize()).mismatch(data)).isEqualTo(-1L);
        SyncIo.write(f.array, 0, data);
        assertThat(f.array.detail().failedDevices()).isEqualTo(2);
        assertThat(f.array.inactiveReason()).isNull();
    }

    @Test
    void aFailedMemberFlushIsAbsorbedByRedundancyButNotByRaid0() {
        f = MdFixture.of(MdFixture.spec(MdLevel.RAID1), 2, 8 * MIB);
        f.disk(0).faults(FLUSHES);
        SyncIo.flush(f.array);
        assertThat(state(0)).isEqualTo(MemberState.FAULTY);
        f.array.stop();

        f = MdFixture.of(MdFixture.spec(MdLevel.RAID0).withChunk(64 * 1024), 2, 8 * MIB);
        f.disk(1).faults(FLUSHES);
        assertThat(SyncIo.execute(f.array, BioOp.FLUSH, 0, 0, BioFlags.NONE, null)).isEqualTo(IoStatus.IO_ERROR);
        f.disk(1).faults(WRITES);
        assertThat(SyncIo.execute(f.array, BioOp.WRITE, 64 * 1024, 4096, BioFlags.NONE, random(7, 4096)))
                .as("chunk 1 lives on member 1").isEqualTo(IoStatus.IO_ERROR);
        assertThat(f.array.inactiveReason()).as("raid0 passes errors through").isNull();
    }
}
