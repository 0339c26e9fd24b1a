package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.protocol.NbdOption;
import io.blockwork.nbd.protocol.NbdWire;
import io.blockwork.nbd.protocol.OptionReply;
import io.blockwork.nbd.protocol.TransmissionFlag;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Option haggling as the spec has it, driven by a raw client. */
@Tag("unit")
class HandshakeTest {

    private final NbdFixture nbd = new NbdFixture();
    private final Disk disk = Disk.memory("hs", 4L << 20, DiskConfig.DEFAULT);

    HandshakeTest() {
        nbd.export(NbdExport.of("vol", disk).withDescription("the volume"));
    }

    @AfterEach
    void stop() {
        nbd.close();
    }

    @Test
    void greetingOffersFixedNewstyleAndNoZeroes() {
        try (RawNbdClient c = nbd.raw().greet()) {
            assertThat(c.handshakeFlags).isEqualTo(NbdWire.FLAG_FIXED_NEWSTYLE | NbdWire.FLAG_NO_ZEROES);
        }
    }

    @Test
    void goRepliesExportBlockSizeNameAndDescription() {
        try (RawNbdClient c = nbd.raw().greet()) {
            List<RawNbdClient.OptReply> r = c.tryGo("vol", NbdWire.INFO_NAME, NbdWire.INFO_DESCRIPTION,
                    NbdWire.INFO_BLOCK_SIZE);

            assertThat(r.getLast().kind()).isEqualTo(OptionReply.ACK);
            assertThat(c.exportSize).isEqualTo(4L << 20);
            assertThat(TransmissionFlag.decode(c.transmissionFlags)).containsExactlyInAnyOrder(
                    TransmissionFlag.HAS_FLAGS, TransmissionFlag.SEND_FLUSH, TransmissionFlag.SEND_FUA,
                    TransmissionFlag.SEND_TRIM, TransmissionFlag.SEND_WRITE_ZEROES, TransmissionFlag.CAN_MULTI_CONN,
                    TransmissionFlag.SEND_CACHE);
            assertThat(info(r, NbdWire.INFO_NAME)).isEqualTo("vol".getBytes(StandardCharsets.UTF_8));
            assertThat(info(r, NbdWire.INFO_DESCRIPTION)).isEqualTo("the volume".getBytes(StandardCharsets.UTF_8));
            ByteBuffer bs = ByteBuffer.wrap(info(r, NbdWire.INFO_BLOCK_SIZE));
            assertThat(bs.getInt()).isEqualTo(512);
            assertThat(bs.getInt()).isEqualTo(4096);
            assertThat(bs.getInt()).isEqualTo(32 << 20);
            // and transmission works
            assertThat(c.write(1, 0, new byte[512], 0).error()).isZero();
        }
    }

    private static byte[] info(List<RawNbdClient.OptReply> replies, int type) {
        for (RawNbdClient.OptReply r : replies) {
            ByteBuffer b = ByteBuffer.wrap(r.data());
            if (r.kind() == OptionReply.INFO && b.getShort() == type) {
                byte[] rest = new byte[b.remaining()];
                b.get(rest);
                return rest;
            }
        }
        throw new AssertionError("no NBD_INFO " + type + " in " + replies);
    }

    @Test
    void unknownExportInGoAndInfoIsAnErrorTheClientCanRecoverFrom() {
        try (RawNbdClient c = nbd.raw().greet()) {
            List<RawNbdClient.OptReply> info = c.option(NbdOption.INFO, RawNbdClient.infoRequest("nope"));
            assertThat(info).hasSize(1);
            assertThat(info.getFirst().kind()).isEqualTo(OptionReply.ERR_UNKNOWN);
            assertThat(info.getFirst().text()).contains("no export named 'nope'");

            List<RawNbdClient.OptReply> go = c.tryGo("nope");
            assertThat(go).hasSize(1);
            assertThat(go.getFirst().kind()).isEqualTo(OptionReply.ERR_UNKNOWN);

            c.go("vol");
            assertThat(c.read(1, 0, 512).error()).isZero();
        }
    }

    @Test
    void unknownExportInExportNameClosesTheConnection() {
        try (RawNbdClient c = nbd.raw().greet()) {
            c.sendOption(NbdOption.EXPORT_NAME.code(), "nope".getBytes(StandardCharsets.UTF_8));
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void exportNameWithoutNoZeroesSendsThePadding() {
        try (RawNbdClient c = nbd.raw().greet(NbdWire.CLIENT_FLAG_FIXED_NEWSTYLE)) {
            c.exportName("vol");
            assertThat(c.exportSize).isEqualTo(4L << 20);
            // 124 zero bytes, then the reply to our first request
            c.send(io.blockwork.nbd.protocol.NbdCommand.FLUSH, 0, 9, 0, 0, null);
            byte[] pad = new byte[124];
            for (int i = 0; i < pad.length; i++) {
                pad[i] = (byte) c.readRawByte();
            }
            assertThat(pad).containsOnly((byte) 0);
            RawNbdClient.Reply r = c.reply();
            assertThat(r.handle()).isEqualTo(9);
            assertThat(r.error()).isZero();
        }
    }

    @Test
    void unsupportedAndUnknownOptionsGetErrUnsupAndHagglingGoesOn() {
        try (RawNbdClient c = nbd.raw().greet()) {
            assertThat(c.option(99, new byte[] {1, 2, 3}).getFirst().kind()).isEqualTo(OptionReply.ERR_UNSUP);
            assertThat(c.option(NbdOption.STARTTLS, new byte[0]).getFirst().kind()).isEqualTo(OptionReply.ERR_UNSUP);
            assertThat(c.option(NbdOption.SET_META_CONTEXT, new byte[8]).getFirst().kind())
                    .as("meta contexts are supported, but SET needs structured replies").isEqualTo(OptionReply.ERR_INVALID);
            assertThat(c.option(NbdOption.EXTENDED_HEADERS, new byte[0]).getFirst().kind()).isEqualTo(OptionReply.ERR_UNSUP);
            assertThat(c.option(NbdOption.STRUCTURED_REPLY, new byte[1]).getFirst().kind()).isEqualTo(OptionReply.ERR_INVALID);
            assertThat(c.option(NbdOption.LIST, new byte[1]).getFirst().kind()).isEqualTo(OptionReply.ERR_INVALID);
            assertThat(c.option(NbdOption.GO, new byte[3]).getFirst().kind()).isEqualTo(OptionReply.ERR_INVALID);
            assertThat(c.option(NbdOption.GO, new byte[] {0, 0, 0, 9, 0, 0}).getFirst().kind()).isEqualTo(OptionReply.ERR_INVALID);

            List<RawNbdClient.OptReply> list = c.option(NbdOption.LIST, new byte[0]);
            assertThat(list).hasSize(2);
            assertThat(list.getFirst().kind()).isEqualTo(OptionReply.SERVER);
            ByteBuffer server = ByteBuffer.wrap(list.getFirst().data());
            int len = server.getInt();
            assertThat(new String(list.getFirst().data(), 4, len, StandardCharsets.UTF_8)).isEqualTo("vol");
            assertThat(list.getLast().kind()).isEqualTo(OptionReply.ACK);

            c.go("vol");
            assertThat(c.flush(1).error()).isZero();
        }
    }

    @Test
    void abortIsAcknowledgedThenClosed() {
        try (RawNbdClient c = nbd.raw().greet()) {
            assertThat(c.option(NbdOption.ABORT, new byte[0]).getFirst().kind()).isEqualTo(OptionReply.ACK);
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void structuredRepliesCarryReadDataAndErrors() {
        try (RawNbdClient c = nbd.open("vol", true)) {
            byte[] data = new byte[4096];
            new java.util.Random(1).nextBytes(data);
            assertThat(c.write(1, 8192, data, NbdWire.CMD_FLAG_FUA).error()).isZero();

            RawNbdClient.Reply read = c.read(2, 8192, 4096);
            assertThat(read.structured()).isTrue();
            assertThat(read.data()).isEqualTo(data);

            RawNbdClient.Reply bad = c.read(3, 4L << 20, 512);
            assertThat(bad.structured()).isTrue();
            assertThat(bad.error()).isEqualTo(22);
            assertThat(bad.message()).contains("beyond the export");
        }
    }
}
