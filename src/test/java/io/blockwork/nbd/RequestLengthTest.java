package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdWire;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A request's length against the limits, at every boundary the protocol draws (proto.md, "Block
 * size constraints"): READ and WRITE longer than the advertised maximum get EINVAL (a refused
 * WRITE's payload is read and dropped, so the stream stays in step); a WRITE payload of more than
 * 2^25 bytes beyond the maximum is treated as denial of service, a hard disconnect; the commands
 * whose length carries no payload (TRIM, WRITE_ZEROES) are not held to the maximum at all, up to
 * the header's 32-bit limit.
 */
@Tag("unit")
class RequestLengthTest {

    private static final int EINVAL = 22;
    private static final int EPERM = 1;
    private static final int MAX = 1 << 20;
    private static final int DOS = NbdWire.DEFAULT_MAX_BLOCK_BYTES;
    private static final long SIZE = 8L << 30;

    private final NbdFixture nbd = new NbdFixture(NbdLimits.DEFAULT.withMaxBlockBytes(MAX));
    private final Disk disk = Disk.memory("big", SIZE, DiskConfig.DEFAULT);

    RequestLengthTest() {
        nbd.export("big", disk).export(NbdExport.of("ro", Disk.memory("ro", 64L << 20, DiskConfig.DEFAULT))
                .readOnly(true));
    }

    @AfterEach
    void stop() {
        nbd.close();
        assertThat(nbd.server.status().failures()).as("server failures").isZero();
    }

    @Test
    void writesAndReadsBeyondTheMaximumGetEinvalAndTheStreamStaysInStep() {
        try (RawNbdClient c = nbd.open("big", true)) {
            assertThat(c.write(1, 0, filled(MAX, 1), 0).error()).as("exactly the maximum").isZero();
            assertThat(c.write(2, 0, filled(MAX + 4096, 2), 0).error()).as("one block more").isEqualTo(EINVAL);
            assertThat(c.write(3, 0, filled(DOS, 3), 0).error()).as("2^25, not yet denial of service")
                    .isEqualTo(EINVAL);
            c.send(NbdCommand.READ, 0, 4, 0, DOS + 4096, null);
            assertThat(c.reply().error()).as("a READ has no payload to refuse: EINVAL").isEqualTo(EINVAL);

            RawNbdClient.Reply r = c.read(5, 0, 4096);
            assertThat(r.error()).isZero();
            assertThat(r.data()).as("only the accepted write reached the disk").containsOnly((byte) 1);
        }
    }

    @Test
    void aWritePayloadBeyondTwoToThe25IsAHardDisconnectWhateverElseIsWrongWithIt() {
        try (RawNbdClient c = nbd.open("big", true)) {
            c.send(NbdCommand.WRITE, 0, 1, 0, DOS + 4096, null);
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawNbdClient c = nbd.open("ro", true)) {
            assertThat(c.write(1, 0, filled(MAX + 4096, 1), 0).error()).as("read-only comes first below 2^25")
                    .isEqualTo(EPERM);
            c.send(NbdCommand.WRITE, 0, 2, 0, DOS + 4096, null);
            assertThat(c.closedByServer()).as("the payload is not read to answer EPERM").isTrue();
        }
    }

    @Test
    void trimsAndZeroingLongerThanTwoGibAreServed() {
        SyncIo.write(disk, 0, MemorySegment.ofArray(filled(4096, 7)));
        SyncIo.write(disk, (3L << 30) - 4096, MemorySegment.ofArray(filled(4096, 7)));
        try (RawNbdClient c = nbd.open("big", true)) {
            c.send(NbdCommand.TRIM, 0, 1, 0, 0x8000_0000, null);
            assertThat(c.reply().error()).as("TRIM of 2 GiB").isZero();
            c.send(NbdCommand.WRITE_ZEROES, 0, 2, 1L << 30, 0xffff_f000, null);
            assertThat(c.reply().error()).as("WRITE_ZEROES of 4 GiB - 4 KiB").isZero();
            assertThat(c.read(3, 0, 4096).data()).containsOnly((byte) 0);
            assertThat(c.read(4, (3L << 30) - 4096, 4096).data()).containsOnly((byte) 0);
        }
    }

    private static byte[] filled(int length, int value) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) value);
        return b;
    }
}
