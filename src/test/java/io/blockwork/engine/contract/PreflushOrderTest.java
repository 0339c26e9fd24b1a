package io.blockwork.engine.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.RecordingDevice;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.md.FlushStrategy;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.MdStrategies;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 14, scope 4: one PREFLUSH rule ({@code engine.block.Preflush}) for every kind of device.
 * A PREFLUSH|FUA write (a journal's commit) over devices that hold what reaches them: no data
 * reaches a device below before every flush sent down for it has completed, and a failed flush
 * fails the write without its data ever being sent. Checked on the core's split path, on a dm
 * table, and on md raid1 with both of seed 000's flush strategies.
 */
@Tag("contract")
class PreflushOrderTest {

    private static final int LEN = 3 << 20; // more than the recording device's 1 MiB max I/O: split

    record Stack(String name, Function<List<RecordingDevice>, BlockDevice> build, int below) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> stacks() {
        return Stream.of(
                new Stack("the core's split path", below -> below.getFirst(), 1),
                new Stack("dm linear table", below -> {
                    DmTestDevices devs = new DmTestDevices();
                    devs.add(below.getFirst());
                    return devs.create("top", "0 8192 linear rec0 0\n8192 16384 linear rec0 8192\n");
                }, 1),
                new Stack("md raid1, fanout", below -> raid1(below, FlushStrategy.FANOUT), 2),
                new Stack("md raid1, serial", below -> raid1(below, FlushStrategy.SERIAL), 2))
                .map(Arguments::of);
    }

    private static MdArray raid1(List<RecordingDevice> below, FlushStrategy flush) {
        return MdArray.create(MdArraySpec.of("md-pf", MdLevel.RAID1).withAssumeClean(true)
                .withStrategies(MdStrategies.DEFAULT.withFlush(flush)), new ArrayList<BlockDevice>(below));
    }

    private static List<RecordingDevice> below(Stack s) {
        List<RecordingDevice> out = new ArrayList<>();
        for (int i = 0; i < s.below(); i++) {
            RecordingDevice d = new RecordingDevice(16L << 20, DeviceLimits.of(512).withMaxIo(1 << 20));
            d.rename("rec" + i);
            d.hold(true);
            out.add(d);
        }
        return out;
    }

    private static long seen(List<RecordingDevice> below, BioOp op) {
        return below.stream().flatMap(d -> d.seen.stream()).filter(b -> b.op() == op).count();
    }

    private static void release(List<RecordingDevice> below) {
        below.forEach(RecordingDevice::release);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stacks")
    void theDataOfAPreflushWriteWaitsForItsFlush(Stack stack) {
        List<RecordingDevice> below = below(stack);
        BlockDevice top = stack.build().apply(below);
        AtomicReference<IoStatus> done = new AtomicReference<>();
        top.submit(Bio.write(0, MemorySegment.ofArray(new byte[LEN]), BioFlags.PREFLUSH.withFua(true),
                b -> done.set(b.status())));

        assertThat(seen(below, BioOp.FLUSH)).as("a flush to each device below").isEqualTo(below.size());
        assertThat(seen(below, BioOp.WRITE)).as("no data before the flushes completed").isZero();
        release(below);
        assertThat(seen(below, BioOp.WRITE)).as("the data after them").isPositive();
        assertThat(below.stream().flatMap(d -> d.seen.stream()).filter(b -> b.op() == BioOp.WRITE))
                .allMatch(b -> !b.preflush() && b.fua());
        assertThat(done.get()).isNull();
        while (below.stream().anyMatch(d -> !d.held.isEmpty())) {
            release(below);
        }
        assertThat(done.get()).isEqualTo(IoStatus.OK);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stacks")
    void aFailedFlushFailsThePreflushWriteAndNoDataIsSent(Stack stack) {
        List<RecordingDevice> below = below(stack);
        BlockDevice top = stack.build().apply(below);
        AtomicReference<IoStatus> done = new AtomicReference<>();
        top.submit(Bio.write(0, MemorySegment.ofArray(new byte[4096]), BioFlags.PREFLUSH.withFua(true),
                b -> done.set(b.status())));
        below.forEach(d -> d.answer(IoStatus.IO_ERROR));
        release(below);
        assertThat(done.get()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(seen(below, BioOp.WRITE)).isZero();
    }
}
