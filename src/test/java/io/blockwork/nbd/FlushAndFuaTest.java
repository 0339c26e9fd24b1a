package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdWire;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * FLUSH and FUA reach the device: after a power cut of a writeback memory disk, what a FLUSH
 * covered or a FUA request wrote is still there, and what neither covered is gone (which shows
 * the power cut really drops volatile data). Also the multi-connection promise behind
 * CAN_MULTI_CONN: a flush on one connection covers writes answered on another.
 */
@Tag("unit")
class FlushAndFuaTest {

    private static final int BLOCK = 4096;
    private final NbdFixture nbd = new NbdFixture();
    private final Disk disk = Disk.memory("wb", 4L << 20, DiskConfig.writeback());

    FlushAndFuaTest() {
        nbd.export("wb", disk);
    }

    @AfterEach
    void stop() {
        nbd.close();
    }

    private static byte[] filled(int value) {
        byte[] b = new byte[BLOCK];
        Arrays.fill(b, (byte) value);
        return b;
    }

    private static void ok(RawNbdClient.Reply r) {
        assertThat(r.error()).as("reply to %d", r.handle()).isZero();
    }

    @Test
    void flushAndFuaSurviveAPowerCutAndPlainWritesDoNot() {
        try (RawNbdClient c = nbd.open("wb", false)) {
            ok(c.write(1, 0, filled(0x11), 0));
            ok(c.flush(2));
            ok(c.write(3, BLOCK, filled(0x22), 0));
            ok(c.write(4, 2 * BLOCK, filled(0x33), NbdWire.CMD_FLAG_FUA));
        }
        disk.powerCut();
        try (RawNbdClient c = nbd.open("wb", false)) {
            assertThat(c.read(1, 0, BLOCK).data()).as("flushed write").isEqualTo(filled(0x11));
            assertThat(c.read(2, BLOCK, BLOCK).data()).as("unflushed write").isEqualTo(filled(0));
            assertThat(c.read(3, 2 * BLOCK, BLOCK).data()).as("FUA write").isEqualTo(filled(0x33));
        }
    }

    @Test
    void fuaOnZeroingAndTrimIsDurableToo() {
        try (RawNbdClient c = nbd.open("wb", true)) {
            ok(c.write(1, 0, filled(0x44), 0));
            ok(c.write(2, BLOCK, filled(0x55), 0));
            ok(c.write(3, 2 * BLOCK, filled(0x66), 0));
            ok(c.flush(4));
            c.send(NbdCommand.WRITE_ZEROES, NbdWire.CMD_FLAG_FUA | NbdWire.CMD_FLAG_NO_HOLE, 5, 0, BLOCK, null);
            ok(c.reply());
            c.send(NbdCommand.TRIM, NbdWire.CMD_FLAG_FUA, 6, BLOCK, BLOCK, null);
            ok(c.reply());
            c.send(NbdCommand.WRITE_ZEROES, 0, 7, 2 * BLOCK, BLOCK, null);
            ok(c.reply());
        }
        disk.powerCut();
        try (RawNbdClient c = nbd.open("wb", true)) {
            assertThat(c.read(1, 0, BLOCK).data()).as("zeroed with FUA").isEqualTo(filled(0));
            assertThat(c.read(2, BLOCK, BLOCK).data()).as("trimmed with FUA").isEqualTo(filled(0));
            assertThat(c.read(3, 2 * BLOCK, BLOCK).data()).as("zeroed without FUA, lost").isEqualTo(filled(0x66));
        }
    }

    @Test
    void aFlushOnOneConnectionCoversWritesAnsweredOnAnother() {
        try (RawNbdClient writer = nbd.open("wb", false); RawNbdClient flusher = nbd.open("wb", true)) {
            ok(writer.write(1, 0, filled(0x77), 0));
            ok(flusher.flush(2));
            ok(writer.write(3, BLOCK, filled(0x78), 0));
        }
        disk.powerCut();
        try (RawNbdClient c = nbd.open("wb", false)) {
            assertThat(c.read(1, 0, BLOCK).data()).isEqualTo(filled(0x77));
            assertThat(c.read(2, BLOCK, BLOCK).data()).isEqualTo(filled(0));
        }
    }

    @Test
    void deviceErrorsBecomeEio() {
        try (RawNbdClient c = nbd.open("wb", true)) {
            disk.faults(new io.blockwork.engine.disk.DiskFaults(true, true, true));
            RawNbdClient.Reply w = c.write(1, 0, filled(1), 0);
            RawNbdClient.Reply r = c.read(2, 0, BLOCK);
            RawNbdClient.Reply f = c.flush(3);
            disk.faults(io.blockwork.engine.disk.DiskFaults.NONE);
            assertThat(w.error()).isEqualTo(5);
            assertThat(r.error()).isEqualTo(5);
            assertThat(r.message()).contains("READ failed on wb: IO_ERROR");
            assertThat(f.error()).isEqualTo(5);
            ok(c.read(4, 0, BLOCK));
        }
    }
}
