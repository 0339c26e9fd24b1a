package io.blockwork.engine.md;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Acceptance 1: known data written to raid4/5/6 over memory disks is found on the members exactly
 * where md puts it, parity included. The expectation comes from {@link ParityModel}, written from
 * md(4)'s description of the layouts; the members are read directly.
 */
@Tag("unit")
class ParityPlacementTest {

    private static final int CHUNK = 8192;

    private static byte[][] membersAfterFill(MdLevel level, String layout, int n, int dataDisks, byte[] data) {
        List<Disk> disks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            disks.add(Disk.memory("pp" + i, 12L * CHUNK + 4096, DiskConfig.DEFAULT));
        }
        MdArraySpec spec = MdArraySpec.parse("pp", level.label(), (long) CHUNK, layout, null, null).withAssumeClean(true);
        MdArray a = MdArray.create(spec, disks);
        assertThat(a.sizeBytes()).as("every member's whole chunks, times the data members").isEqualTo(12L * CHUNK * dataDisks);
        // Written in uneven pieces, so partial-stripe writes (rmw and rcw) land the parity too.
        Random r = new Random(7);
        long at = 0;
        while (at < a.sizeBytes()) {
            long len = Math.min(a.sizeBytes() - at, 512L * (1 + r.nextInt(80)));
            SyncIo.write(a, at, MemorySegment.ofArray(data).asSlice(at, len));
            at += len;
        }
        a.stop();
        byte[][] out = new byte[n][];
        for (int i = 0; i < n; i++) {
            out[i] = new byte[12 * CHUNK];
            SyncIo.read(disks.get(i), 0, MemorySegment.ofArray(out[i]));
        }
        return out;
    }

    private static void check(MdLevel level, String layout, int code, int n) {
        ParityModel model = new ParityModel(level, code, n);
        byte[] data = new byte[12 * CHUNK * model.dataDisks()];
        new Random(code * 31L + n).nextBytes(data);
        byte[][] actual = membersAfterFill(level, layout, n, model.dataDisks(), data);
        byte[][] expected = model.members(data, CHUNK);
        for (int d = 0; d < n; d++) {
            long mismatch = MemorySegment.ofArray(actual[d]).mismatch(MemorySegment.ofArray(expected[d]));
            assertThat(mismatch).as("%s %s on %d disks: member %d differs from md's layout at byte %d (row %d)",
                    level.label(), layout, n, d, mismatch, mismatch / CHUNK).isEqualTo(-1L);
        }
    }

    @ParameterizedTest
    @CsvSource({"left-asymmetric, 0, 4", "right-asymmetric, 1, 4", "left-symmetric, 2, 4", "right-symmetric, 3, 4",
            "parity-first, 4, 4", "parity-last, 5, 4", "ls, 2, 3", "la, 0, 5", "rs, 3, 5", "ra, 1, 3", "2, 2, 6"})
    void raid5EveryLayout(String layout, int code, int n) {
        check(MdLevel.RAID5, layout, code, n);
    }

    @ParameterizedTest
    @CsvSource({"left-symmetric, 2, 4", "left-symmetric, 2, 6", "left-asymmetric, 0, 5", "right-asymmetric, 1, 5",
            "right-symmetric, 3, 6", "parity-first, 4, 5", "parity-last, 5, 5", "ddf-zero-restart, 8, 5",
            "ddf-N-restart, 9, 5", "ddf-N-continue, 10, 6", "left-asymmetric-6, 16, 5", "right-asymmetric-6, 17, 5",
            "left-symmetric-6, 18, 6", "right-symmetric-6, 19, 5", "parity-first-6, 20, 5"})
    void raid6EveryLayout(String layout, int code, int n) {
        check(MdLevel.RAID6, layout, code, n);
    }

    @Test
    void raid4KeepsParityOnTheLastMember() {
        check(MdLevel.RAID4, null, 5, 4);
    }

    @Test
    void mdstatShowsParityLevelsAsTheKernelDoes() {
        List<Disk> disks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            disks.add(Disk.memory("ms" + i, 4L << 20, DiskConfig.DEFAULT));
        }
        MdArray a = MdArray.create(MdArraySpec.of("md5", MdLevel.RAID5).withAssumeClean(true), disks);
        assertThat(MdStat.render(List.of(a))).contains("active raid5 ")
                .contains(" blocks super non-persistent level 5, 512k chunk, algorithm 2 [4/4] [UUUU]\n");
        a.stop();
    }
}
