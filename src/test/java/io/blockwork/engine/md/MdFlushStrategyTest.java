package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.RecordingDevice;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Seed 000's two flush strategies, watched at the members: {@code fanout} sends every member its
 * flush at once, overlapping other flushes; {@code serial} runs one round over all members per
 * flush, one flush at a time, and sends data only after its round.
 */
@Tag("unit")
class MdFlushStrategyTest {

    private final List<RecordingDevice> members = new ArrayList<>();
    private MdArray array;

    @AfterEach
    void stop() {
        array.stop();
    }

    private MdArray raid10(FlushStrategy flush) {
        for (int i = 0; i < 4; i++) {
            RecordingDevice d = new RecordingDevice(16L << 20, DeviceLimits.of(512));
            d.rename("m" + i);
            d.hold(true);
            members.add(d);
        }
        array = MdArray.create(MdFixture.raid10("n2").withAssumeClean(true)
                .withStrategies(MdStrategies.DEFAULT.withFlush(flush)), members);
        return array;
    }

    private long seen(BioOp op) {
        return members.stream().flatMap(m -> m.seen.stream()).filter(b -> b.op() == op).count();
    }

    private void releaseAll() {
        members.forEach(RecordingDevice::release);
    }

    private static Bio submit(MdArray a, BioOp op, BioFlags flags, AtomicReference<IoStatus> done) {
        Bio bio = op == BioOp.FLUSH ? Bio.flush(b -> done.set(b.status()))
                : Bio.of(op, 0, 4096, flags, MemorySegment.ofArray(new byte[4096]), b -> done.set(b.status()));
        a.submit(bio);
        return bio;
    }

    @Test
    void fanoutSendsEveryMemberItsFlushAtOnceAndThePreflushDataAfterThem() {
        raid10(FlushStrategy.FANOUT);
        AtomicReference<IoStatus> done = new AtomicReference<>();
        submit(array, BioOp.WRITE, BioFlags.PREFLUSH.withFua(true), done);
        assertThat(seen(BioOp.FLUSH)).as("member flushes in flight").isEqualTo(4);
        assertThat(seen(BioOp.WRITE)).as("the data waits for them (engine.block.Preflush)").isZero();
        releaseAll();
        assertThat(seen(BioOp.WRITE)).as("data copies after the flushes").isEqualTo(2);
        List<Bio> writes = members.stream().flatMap(m -> m.seen.stream()).filter(b -> b.op() == BioOp.WRITE).toList();
        assertThat(writes).allMatch(b -> !b.preflush() && b.fua());
        assertThat(done.get()).isNull();
        releaseAll();
        assertThat(done.get()).isEqualTo(IoStatus.OK);
    }

    @Test
    void fanoutLetsConcurrentFlushesOverlap() {
        raid10(FlushStrategy.FANOUT);
        AtomicReference<IoStatus> first = new AtomicReference<>();
        AtomicReference<IoStatus> second = new AtomicReference<>();
        submit(array, BioOp.FLUSH, BioFlags.NONE, first);
        submit(array, BioOp.FLUSH, BioFlags.NONE, second);
        assertThat(seen(BioOp.FLUSH)).isEqualTo(8);
        releaseAll();
        assertThat(first.get()).isEqualTo(IoStatus.OK);
        assertThat(second.get()).isEqualTo(IoStatus.OK);
    }

    @Test
    void serialRunsOneRoundAtATimeAndSendsDataAfterItsRound() {
        raid10(FlushStrategy.SERIAL);
        AtomicReference<IoStatus> first = new AtomicReference<>();
        AtomicReference<IoStatus> second = new AtomicReference<>();
        submit(array, BioOp.WRITE, BioFlags.PREFLUSH, first);
        submit(array, BioOp.FLUSH, BioFlags.NONE, second);
        assertThat(seen(BioOp.FLUSH)).as("only the first round runs").isEqualTo(4);
        assertThat(seen(BioOp.WRITE)).as("data waits for its round").isZero();

        releaseAll();
        assertThat(seen(BioOp.WRITE)).as("data after the round").isEqualTo(2);
        assertThat(seen(BioOp.FLUSH)).as("the second round starts when the first ends").isEqualTo(8);
        assertThat(first.get()).isNull();
        releaseAll();
        assertThat(first.get()).isEqualTo(IoStatus.OK);
        assertThat(second.get()).isEqualTo(IoStatus.OK);
    }

    @Test
    void flushesSkipFailedMembers() {
        raid10(FlushStrategy.FANOUT);
        array.fail("m2");
        AtomicReference<IoStatus> done = new AtomicReference<>();
        submit(array, BioOp.FLUSH, BioFlags.NONE, done);
        releaseAll();
        assertThat(done.get()).isEqualTo(IoStatus.OK);
        assertThat(members.get(2).seen).noneMatch(b -> b.op() == BioOp.FLUSH);
        assertThat(seen(BioOp.FLUSH)).isEqualTo(3);
    }

    @Test
    void flushesSkipSpares() {
        raid10(FlushStrategy.SERIAL);
        RecordingDevice spare = new RecordingDevice(16L << 20, DeviceLimits.of(512));
        spare.rename("spare");
        array.add(spare);
        AtomicReference<IoStatus> done = new AtomicReference<>();
        submit(array, BioOp.FLUSH, BioFlags.NONE, done);
        releaseAll();
        assertThat(done.get()).isEqualTo(IoStatus.OK);
        assertThat(spare.seen).isEmpty();
        assertThat(seen(BioOp.FLUSH)).isEqualTo(4);
    }

    @Test
    void aMemberFlushErrorFailsThatMemberNotTheFlush() {
        raid10(FlushStrategy.FANOUT);
        AtomicReference<IoStatus> done = new AtomicReference<>();
        submit(array, BioOp.FLUSH, BioFlags.NONE, done);
        members.get(3).answer(IoStatus.IO_ERROR);
        releaseAll();
        assertThat(done.get()).isEqualTo(IoStatus.OK);
        assertThat(array.detail().failedDevices()).isEqualTo(1);
    }
}
