package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.nbd.protocol.NbdCommand;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Many requests in flight on one connection; replies go out as bios complete, matched by handle. */
@Tag("unit")
class OutOfOrderRepliesTest {

    private static final int BLOCK = 4096;

    private static byte[] pattern(long block) {
        byte[] b = new byte[BLOCK];
        new Random(block).nextBytes(b);
        return b;
    }

    @ParameterizedTest(name = "structured replies: {0}")
    @ValueSource(booleans = {false, true})
    void repliesFollowCompletionOrderNotRequestOrder(boolean structured) {
        Disk disk = Disk.memory("lower", 1L << 20, DiskConfig.DEFAULT);
        for (long b = 0; b < 32; b++) {
            SyncIo.write(disk, b * BLOCK, MemorySegment.ofArray(pattern(b)));
        }
        try (NbdFixture nbd = new NbdFixture().export("rev", new ReorderingDevice(disk, 32));
             RawNbdClient c = nbd.open("rev", structured)) {
            for (long h = 0; h < 32; h++) {
                c.send(NbdCommand.READ, 0, h, h * BLOCK, BLOCK, null);
            }
            List<Long> order = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                RawNbdClient.Reply r = c.reply();
                assertThat(r.error()).isZero();
                assertThat(r.data()).as("data of handle %d", r.handle()).isEqualTo(pattern(r.handle()));
                order.add(r.handle());
            }
            assertThat(order).containsExactlyElementsOf(LongStream.range(0, 32).map(h -> 31 - h).boxed().toList());
        }
    }

    @Test
    void everyHandleAnsweredOnceWithItsOwnDataUnderJitteryLatency() {
        LatencyModel jitter = new LatencyModel(200_000, 200_000, 100_000, 190_000);
        Disk disk = Disk.memory("jitter", 4L << 20, DiskConfig.writeback().withLatency(jitter));
        int n = 256;
        try (NbdFixture nbd = new NbdFixture().export("j", disk); RawNbdClient c = nbd.open("j", true)) {
            for (long h = 0; h < n; h++) {
                c.send(NbdCommand.WRITE, h % 7 == 0 ? 1 : 0, h, h * BLOCK, BLOCK, pattern(h));
            }
            c.send(NbdCommand.FLUSH, 0, n, 0, 0, null);
            Map<Long, RawNbdClient.Reply> writes = collect(c, n + 1);
            assertThat(writes.values()).allSatisfy(r -> assertThat(r.error()).isZero());

            for (long h = 0; h < n; h++) {
                c.send(NbdCommand.READ, 0, 1000 + h, h * BLOCK, BLOCK, null);
            }
            Map<Long, RawNbdClient.Reply> reads = collect(c, n);
            for (long h = 0; h < n; h++) {
                assertThat(reads.get(1000 + h).data()).as("block %d", h).isEqualTo(pattern(h));
            }
        }
    }

    private static Map<Long, RawNbdClient.Reply> collect(RawNbdClient c, int n) {
        Map<Long, RawNbdClient.Reply> byHandle = new HashMap<>();
        for (int i = 0; i < n; i++) {
            RawNbdClient.Reply r = c.reply();
            assertThat(byHandle.put(r.handle(), r)).as("second reply for handle %d", r.handle()).isNull();
        }
        assertThat(byHandle).hasSize(n);
        return byHandle;
    }
}
