package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.RecordingDevice;
import io.blockwork.nbd.protocol.NbdCommand;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A connection's memory stays under its budget whatever the client sends. */
@Tag("unit")
class InFlightBudgetTest {

    private static final int WRITE = 64 << 10;
    private static final int CHARGE = WRITE + NbdLimits.REQUEST_OVERHEAD_BYTES;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void theServerStopsReadingWhenTheBudgetIsSpentAndResumesAsRepliesGoOut() throws Exception {
        NbdLimits limits = NbdLimits.DEFAULT.withMaxBlockBytes(256 << 10).withMaxInFlightBytes(1 << 20);
        RecordingDevice device = new RecordingDevice(16L << 20, DeviceLimits.of(512));
        device.hold(true);
        int fit = (1 << 20) / CHARGE;
        try (NbdFixture nbd = new NbdFixture(limits).export("held", device);
             RawNbdClient c = nbd.open("held", false)) {
            Thread sender = Thread.ofPlatform().start(() -> {
                for (long h = 0; h < 64; h++) {
                    c.send(NbdCommand.WRITE, 0, h, h * WRITE, WRITE, new byte[WRITE]);
                }
            });

            await().atMost(WAIT).until(() -> device.seen.size() >= fit);
            await().during(Duration.ofMillis(300)).atMost(WAIT)
                    .until(() -> device.seen.size() == fit);
            assertThat(nbd.server.clients("held").getFirst().inFlightBytes()).isEqualTo((long) fit * CHARGE);

            device.hold(false);
            device.release();
            Set<Long> answered = new HashSet<>();
            for (int i = 0; i < 64; i++) {
                RawNbdClient.Reply r = c.reply();
                assertThat(r.error()).isZero();
                answered.add(r.handle());
            }
            sender.join(10_000);
            assertThat(answered).hasSize(64);
            assertThat(device.seen).hasSize(64);
            await().atMost(WAIT)
                    .until(() -> nbd.server.clients("held").getFirst().inFlightBytes() == 0);
        }
    }
}
