package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdOption;
import io.blockwork.nbd.protocol.NbdWire;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 6 acceptance 5: malformed, oversized and out-of-range traffic gets an error reply or a
 * clean disconnect, never a crash or a stuck connection, while a healthy client on another
 * connection keeps being served after every single case.
 */
@Tag("unit")
class RobustnessTest {

    private static final int EINVAL = 22;
    private static final int ENOSPC = 28;
    private static final long SIZE = 8L << 20;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final NbdFixture nbd = new NbdFixture();
    private final Disk victim = Disk.memory("victim", SIZE, DiskConfig.DEFAULT);
    private final Disk good = Disk.memory("good", SIZE, DiskConfig.DEFAULT);
    private HealthyClient healthy;

    @BeforeEach
    void startHealthyClient() {
        nbd.export("victim", victim).export("good", good);
        healthy = HealthyClient.on(nbd, "good", SIZE);
    }

    @AfterEach
    void stop() throws InterruptedException {
        healthy.close();
        nbd.close();
        assertThat(nbd.server.status().failures()).as("unexpected server failures").isZero();
    }

    /** Runs one misbehaving client, then checks the healthy one is still being served. */
    private void attack(String what, Consumer<RawNbdClient> misbehave) {
        try (RawNbdClient c = nbd.raw()) {
            misbehave.accept(c);
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError(what + ": " + e.getMessage(), e);
        }
        healthy.assertStillServed(what);
    }

    private RawNbdClient transmission(RawNbdClient c) {
        c.greet().negotiateStructuredReplies();
        return c.go("victim");
    }

    @Test
    void handshakeAbuseEndsInADisconnect() {
        attack("garbage client flags", c -> {
            c.greet(0xdeadbeef);
            assertThat(c.closedByServer()).isTrue();
        });
        attack("garbage instead of the greeting reply", c -> {
            c.sendBytes(new byte[64]);
            assertThat(c.closedAfterDraining()).isTrue();
        });
        attack("bad option magic", c -> {
            c.greet();
            c.sendBytes(ByteBuffer.allocate(16).putLong(0x1234).putInt(7).putInt(0).array());
            assertThat(c.closedByServer()).isTrue();
        });
        attack("oversized option length", c -> {
            c.greet();
            c.sendBytes(ByteBuffer.allocate(16).putLong(NbdWire.OPTION_MAGIC).putInt(7).putInt(-1).array());
            assertThat(c.closedByServer()).isTrue();
        });
        attack("truncated option header", c -> {
            c.greet();
            c.sendBytes(new byte[] {0x49, 0x48, 0x41});
            c.shutdownOutput();
            assertThat(c.closedByServer()).isTrue();
        });
        attack("truncated option data", c -> {
            c.greet();
            c.sendBytes(ByteBuffer.allocate(20).putLong(NbdWire.OPTION_MAGIC).putInt(7).putInt(100).array());
            c.shutdownOutput();
            assertThat(c.closedByServer()).isTrue();
        });
        attack("endless options", c -> {
            c.greet();
            for (int i = 0; i < nbd.server.limits().maxOptions(); i++) {
                c.sendOption(1000 + i, new byte[0]);
                assertThat(c.readOptionReply().type()).isEqualTo(io.blockwork.nbd.protocol.OptionReply.ERR_UNSUP.code());
            }
            c.sendOption(NbdOption.LIST.code(), new byte[0]);
            assertThat(c.closedByServer()).isTrue();
        });
    }

    @Test
    void malformedRequestsGetErrorRepliesAndTheConnectionGoesOn() {
        attack("invalid requests", c -> {
            transmission(c);
            long h = 100;
            assertThat(error(c, NbdCommand.READ, 0, h++, 0, 0xffff_ffff)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.READ, 0, h++, 0, 64 << 20)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.READ, 0, h++, SIZE, 4096)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.READ, 0, h++, SIZE - 512, 4096)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.READ, 0, h++, Long.MIN_VALUE, 4096)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.READ, 0, h++, -512, 1024)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.READ, 0, h++, 100, 4096)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.READ, 0, h++, 0, 0)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.READ, 0x8000, h++, 0, 4096)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.READ, NbdWire.CMD_FLAG_DF, h++, 0, 4096)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.TRIM, 0, h++, SIZE - 4096, 8192)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.WRITE_ZEROES, 0, h++, SIZE, 4096)).isEqualTo(ENOSPC);
            assertThat(error(c, NbdCommand.WRITE_ZEROES, NbdWire.CMD_FLAG_FAST_ZERO, h++, 0, 4096)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.FLUSH, 0, h++, 4096, 0)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.BLOCK_STATUS, 0, h++, 0, 4096)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.CACHE, NbdWire.CMD_FLAG_FUA, h++, 0, 4096)).isEqualTo(EINVAL);
            assertThat(error(c, NbdCommand.CACHE, 0, h++, SIZE, 4096)).isEqualTo(EINVAL);
            c.sendRaw(NbdWire.REQUEST_MAGIC, 42, 0, h, 0, 4096, null);
            assertThat(c.reply().error()).isEqualTo(EINVAL);
            h++;
            // refused writes: the payload is consumed, so the stream stays in step
            c.send(NbdCommand.WRITE, 0, h, SIZE - 512, 4096, new byte[4096]);
            assertThat(c.reply().error()).isEqualTo(ENOSPC);
            c.send(NbdCommand.WRITE, NbdWire.CMD_FLAG_NO_HOLE, h, 0, 4096, new byte[4096]);
            assertThat(c.reply().error()).isEqualTo(EINVAL);
            c.send(NbdCommand.WRITE, 0, h, 0, 1000, new byte[1000]);
            assertThat(c.reply().error()).isEqualTo(EINVAL);

            byte[] data = new byte[4096];
            Arrays.fill(data, (byte) 0x5a);
            assertThat(c.write(1, 4096, data, 0).error()).isZero();
            assertThat(c.read(2, 4096, 4096).data()).isEqualTo(data);
        });
        // the attacker hung up; its connection ends once the server has read the end of its stream
        await().atMost(WAIT).until(() -> nbd.server.clients().size() == 1);
        assertThat(nbd.server.clients()).extracting(NbdClient::exportName).containsOnly("good");
    }

    @Test
    void requestsPipelinedBehindARefusedWriteAreStillServed() {
        // Found by NbdCommandSequenceTest: dropping a refused WRITE's payload used to drop the
        // requests that had arrived with it too, and the client waited for their replies for ever.
        attack("pipelined requests behind a refused write", c -> {
            transmission(c);
            byte[] pipelined = java.nio.ByteBuffer.allocate(3 * 28 + 1000)
                    .putInt(NbdWire.REQUEST_MAGIC).putShort((short) 0).putShort((short) NbdCommand.WRITE.code())
                    .putLong(1).putLong(0).putInt(1000).put(new byte[1000]) // unaligned: refused, payload dropped
                    .putInt(NbdWire.REQUEST_MAGIC).putShort((short) 0).putShort((short) NbdCommand.FLUSH.code())
                    .putLong(2).putLong(0).putInt(0)
                    .putInt(NbdWire.REQUEST_MAGIC).putShort((short) 0).putShort((short) NbdCommand.FLUSH.code())
                    .putLong(3).putLong(0).putInt(0).array();
            c.sendBytes(pipelined); // one write, so the server reads it all in one go
            assertThat(c.reply().error()).isEqualTo(EINVAL);
            assertThat(c.reply().handle()).isEqualTo(2);
            assertThat(c.reply().handle()).isEqualTo(3);
        });
    }

    private static int error(RawNbdClient c, NbdCommand cmd, int flags, long handle, long offset, int length) {
        c.send(cmd, flags, handle, offset, length, null);
        RawNbdClient.Reply r = c.reply();
        assertThat(r.handle()).isEqualTo(handle);
        return r.error();
    }

    @Test
    void brokenFramingEndsInADisconnect() {
        attack("bad request magic", c -> {
            transmission(c);
            c.sendRaw(0x12345678, 0, 0, 1, 0, 4096, null);
            assertThat(c.closedByServer()).isTrue();
        });
        attack("random garbage after the handshake", c -> {
            transmission(c);
            byte[] junk = new byte[5000];
            new Random(3).nextBytes(junk);
            c.sendBytes(junk);
            assertThat(c.closedAfterDraining()).isTrue();
        });
        attack("truncated request header", c -> {
            transmission(c);
            c.sendBytes(new byte[] {0x25, 0x60, (byte) 0x95, 0x13, 0, 0, 0});
            c.shutdownOutput();
            assertThat(c.closedByServer()).isTrue();
        });
        attack("oversized write", c -> {
            transmission(c);
            c.send(NbdCommand.WRITE, 0, 1, 0, 0xffff_fff0, null);
            assertThat(c.closedByServer()).isTrue();
        });
        attack("write payload cut short", c -> {
            transmission(c);
            c.send(NbdCommand.WRITE, 0, 1, 0, 1 << 20, new byte[1000]);
            c.shutdownOutput();
            assertThat(c.closedByServer()).isTrue();
        });
        attack("client vanishes with requests in flight", c -> {
            transmission(c);
            for (int i = 0; i < 64; i++) {
                c.send(NbdCommand.READ, 0, i, 0, 65536, null);
            }
        });
        await().atMost(WAIT).until(() -> nbd.server.clients().size() == 1);
        assertThat(nbd.server.clients()).extracting(NbdClient::exportName).containsOnly("good");
    }

    @Test
    void nothingAfterDisconnectIsExecuted() {
        SyncIo.write(victim, 0, MemorySegment.ofArray(new byte[8192]).fill((byte) 1));
        attack("writes after DISC", c -> {
            transmission(c);
            byte[] twos = new byte[4096];
            Arrays.fill(twos, (byte) 2);
            c.send(NbdCommand.WRITE, 0, 1, 0, 4096, twos);
            // DISC, a WRITE and garbage in one write: the server may close as soon as it has read
            // DISC, and bytes sent after that would meet a closed socket (a broken pipe here, which
            // tests nothing); sent together they are all in the server's hands when it reads DISC.
            byte[] disc = RawNbdClient.request(NbdCommand.DISC, 0, 0, 0, 0, null);
            byte[] after = RawNbdClient.request(NbdCommand.WRITE, 0, 2, 4096, 4096, twos);
            c.sendBytes(ByteBuffer.allocate(disc.length + after.length + 100).put(disc).put(after).array());
            RawNbdClient.Reply r = c.reply();
            assertThat(r.handle()).isEqualTo(1);
            assertThat(r.error()).isZero();
            assertThat(c.closedByServer()).isTrue();
        });
        byte[] back = new byte[8192];
        SyncIo.read(victim, 0, MemorySegment.ofArray(back));
        assertThat(Arrays.copyOfRange(back, 0, 4096)).containsOnly((byte) 2);
        assertThat(Arrays.copyOfRange(back, 4096, 8192)).as("the write sent after DISC").containsOnly((byte) 1);
    }

    @Test
    void aClientThatNeverFinishesTheHandshakeIsDropped() {
        try (NbdFixture strict = new NbdFixture(NbdLimits.DEFAULT.withHandshakeTimeout(Duration.ofMillis(200)));
             RawNbdClient c = strict.raw()) {
            await().atMost(WAIT).until(() -> strict.server.clients().isEmpty());
            assertThat(c.closedAfterDraining()).isTrue();
        }
    }
}
