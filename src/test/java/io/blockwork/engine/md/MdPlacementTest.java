package io.blockwork.engine.md;

import static io.blockwork.engine.md.MdManagementTest.read;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What lands on the members is what md would have written there: every 4 KiB block of the array
 * is stamped with its index, and each member is then read directly at the places the independent
 * {@link Raid10Model} (or the plain raid0/linear/raid1 rules) says the block's copies belong.
 */
@Tag("unit")
class MdPlacementTest {

    private static final int BLOCK = 4096;
    private static final long CHUNK = 8192;

    private static MemorySegment stamped(long fromBlock, int blocks) {
        MemorySegment s = MemorySegment.ofArray(new byte[blocks * BLOCK]);
        for (int i = 0; i < blocks; i++) {
            s.set(JAVA_LONG_UNALIGNED, (long) i * BLOCK, fromBlock + i);
            s.set(JAVA_LONG_UNALIGNED, (long) i * BLOCK + BLOCK - 8, ~(fromBlock + i));
        }
        return s;
    }

    private static long stampAt(Disk d, long offset) {
        MemorySegment b = read(d, offset, BLOCK);
        long stamp = b.get(JAVA_LONG_UNALIGNED, 0);
        assertThat(b.get(JAVA_LONG_UNALIGNED, BLOCK - 8)).as("%s at %d is one whole block", d.name(), offset).isEqualTo(~stamp);
        return stamp;
    }

    private static List<Disk> disks(int n, long bytes) {
        List<Disk> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Disk.memory("p" + i, bytes, DiskConfig.DEFAULT));
        }
        return out;
    }

    private static MdArray fill(MdArraySpec spec, List<Disk> disks) {
        MdArray a = MdArray.create(spec.withAssumeClean(true), disks);
        SyncIo.write(a, 0, stamped(0, (int) (a.sizeBytes() / BLOCK)));
        return a;
    }

    @ParameterizedTest
    @CsvSource({"n2, 2", "n2, 3", "n2, 4", "n3, 5", "f2, 2", "f2, 3", "f3, 4", "o2, 2", "o2, 5", "o3, 3", "0x202, 4", "0x10202, 6"})
    void raid10MembersHoldEachBlockWhereMdWouldPutIt(String layoutName, int n) {
        Raid10Layout layout = Raid10Layout.parse(layoutName);
        long memberBytes = 40 * CHUNK + 4096;
        List<Disk> disks = disks(n, memberBytes);
        MdArray a = fill(MdArraySpec.of("p10", MdLevel.RAID10).withLayout(layout).withChunk(CHUNK), disks);
        Raid10Model model = new Raid10Model(n, layout.near(), layout.far(), layout.offset(), memberBytes / CHUNK);
        assertThat(a.sizeBytes()).isEqualTo(model.arrayChunks() * CHUNK);
        for (long block = 0; block < a.sizeBytes() / BLOCK; block++) {
            long offset = block * BLOCK;
            for (Raid10Model.Place p : model.places(offset / CHUNK)) {
                long at = p.row() * CHUNK + offset % CHUNK;
                assertThat(stampAt(disks.get(p.disk()), at)).as("block %d on disk %d at %d", block, p.disk(), at).isEqualTo(block);
            }
        }
        a.stop();
    }

    @ParameterizedTest
    @CsvSource({"2", "3", "5"})
    void raid0StripesChunksRoundRobin(int n) {
        List<Disk> disks = disks(n, 16 * CHUNK + 512);
        MdArray a = fill(MdArraySpec.of("p0", MdLevel.RAID0).withChunk(CHUNK), disks);
        assertThat(a.sizeBytes()).isEqualTo(n * 16 * CHUNK);
        for (long block = 0; block < a.sizeBytes() / BLOCK; block++) {
            long chunk = block * BLOCK / CHUNK;
            long at = chunk / n * CHUNK + block * BLOCK % CHUNK;
            assertThat(stampAt(disks.get((int) (chunk % n)), at)).isEqualTo(block);
        }
    }

    @org.junit.jupiter.api.Test
    void linearConcatenatesMembersAndRaid1MirrorsThem() {
        List<Disk> parts = List.of(Disk.memory("l0", 3 * BLOCK, DiskConfig.DEFAULT), Disk.memory("l1", 5 * BLOCK, DiskConfig.DEFAULT));
        MdArray linear = fill(MdArraySpec.of("pl", MdLevel.LINEAR), parts);
        assertThat(linear.sizeBytes()).isEqualTo(8 * BLOCK);
        for (int b = 0; b < 8; b++) {
            assertThat(stampAt(b < 3 ? parts.get(0) : parts.get(1), (b < 3 ? b : b - 3) * (long) BLOCK)).isEqualTo(b);
        }
        List<Disk> mirrors = disks(3, 64 * 1024 + 4096);
        MdArray raid1 = fill(MdArraySpec.of("p1", MdLevel.RAID1), mirrors);
        assertThat(raid1.sizeBytes()).as("rounded down to 64 KiB").isEqualTo(64 * 1024);
        for (Disk m : mirrors) {
            for (int b = 0; b < 16; b++) {
                assertThat(stampAt(m, b * (long) BLOCK)).isEqualTo(b);
            }
        }
        raid1.stop();
    }
}
