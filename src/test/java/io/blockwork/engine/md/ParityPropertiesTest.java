package io.blockwork.engine.md;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Acceptance 2: for random write sequences, failing any one (raid5) or any two (raid6) members
 * leaves every byte readable and equal to a model (a plain byte array), writes made while degraded
 * included; spares rebuilt into the empty slots then hold exactly what {@link ParityModel} says
 * those members must hold.
 */
@Tag("unit")
class ParityPropertiesTest {

    private static final int CHUNK = 8192;
    private static final long MEMBER = 16L * CHUNK;

    /** One write: where, how long, and the seed of its bytes. */
    record Write(long offset, int length, long seed) {}

    @Provide
    Arbitrary<List<Write>> writes() {
        Arbitrary<Write> w = Combinators.combine(Arbitraries.longs().between(0, 1 << 20),
                Arbitraries.integers().between(1, 64), Arbitraries.longs())
                .as((at, sectors, seed) -> new Write(at / 512 * 512, sectors * 512, seed));
        return w.list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 30)
    void raid5ReadsEveryByteWithAnyMemberFailedAndRebuildsIt(@ForAll("writes") List<Write> before,
                                                             @ForAll("writes") List<Write> degraded,
                                                             @ForAll @IntRange(min = 0, max = 3) int failed,
                                                             @ForAll @IntRange(min = 0, max = 5) int layout) {
        run(MdLevel.RAID5, layout, 4, before, degraded, new int[] {failed});
    }

    @Property(tries = 30)
    void raid6ReadsEveryByteWithAnyTwoMembersFailedAndRebuildsThem(@ForAll("writes") List<Write> before,
                                                                   @ForAll("writes") List<Write> degraded,
                                                                   @ForAll @Size(2) List<@IntRange(min = 0, max = 4) Integer> pair,
                                                                   @ForAll("raid6Layouts") int layout) {
        int a = pair.get(0);
        int b = pair.get(1);
        int[] failed = a == b ? new int[] {a} : new int[] {a, b};
        run(MdLevel.RAID6, layout, 5, before, degraded, failed);
    }

    @Provide
    Arbitrary<Integer> raid6Layouts() {
        return Arbitraries.of(0, 1, 2, 3, 4, 5, 8, 9, 10, 16, 17, 18, 19, 20);
    }

    private static void run(MdLevel level, int code, int n, List<Write> before, List<Write> degraded, int[] failed) {
        List<Disk> disks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            disks.add(Disk.memory("pq" + i, MEMBER, DiskConfig.DEFAULT));
        }
        MdArraySpec spec = MdArraySpec.parse("pq", level.label(), (long) CHUNK, Integer.toString(code), null, null)
                .withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED).withStripeCacheSize(16);
        MdArray a = MdArray.create(spec, disks);
        try {
            byte[] model = new byte[(int) a.sizeBytes()];
            apply(a, model, before);
            for (int f : failed) {
                a.fail(disks.get(f).name());
            }
            apply(a, model, degraded);
            assertThat(readAll(a)).as("every byte, %d member(s) failed", failed.length).isEqualTo(model);
            List<Disk> spares = new ArrayList<>();
            for (int f : failed) {
                Disk spare = Disk.memory("pq-spare" + f, MEMBER, DiskConfig.DEFAULT);
                spares.add(spare);
                a.add(spare);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> a.detail().activeDevices() == n);
            byte[][] expected = new ParityModel(level, code, n).members(model, CHUNK);
            for (int i = 0; i < failed.length; i++) {
                int slot = slotOf(a, spares.get(i).name());
                byte[] held = new byte[expected[slot].length];
                SyncIo.read(spares.get(i), 0, MemorySegment.ofArray(held));
                assertThat(held).as("rebuilt member in slot %d", slot).isEqualTo(expected[slot]);
            }
            assertThat(readAll(a)).isEqualTo(model);
        } finally {
            a.stop();
        }
    }

    private static int slotOf(MdArray a, String device) {
        return a.detail().members().stream().filter(m -> device.equals(m.device())).findFirst().orElseThrow().raidDevice();
    }

    private static void apply(MdArray a, byte[] model, List<Write> writes) {
        for (Write w : writes) {
            long at = w.offset() % a.sizeBytes();
            int len = (int) Math.min(w.length(), a.sizeBytes() - at);
            byte[] data = new byte[len];
            new Random(w.seed()).nextBytes(data);
            SyncIo.write(a, at, MemorySegment.ofArray(data));
            System.arraycopy(data, 0, model, (int) at, len);
        }
    }

    private static byte[] readAll(MdArray a) {
        byte[] out = new byte[(int) a.sizeBytes()];
        SyncIo.read(a, 0, MemorySegment.ofArray(out));
        return out;
    }
}
