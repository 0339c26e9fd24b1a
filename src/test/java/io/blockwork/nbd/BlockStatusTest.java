package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.RawNbdClient.Status;
import io.blockwork.nbd.protocol.NbdCommand;
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

/**
 * NBD_CMD_BLOCK_STATUS on the wire: negotiating {@code base:allocation} (LIST and SET meta
 * context, and every way to get it wrong), the answer's descriptors for a memory disk after
 * writes and trims, REQ_ONE, refusals, and NBD_CMD_CACHE answered as the no-op it is. Exactness
 * over whole stacks is {@code AllocationPropertyTest}'s; qemu-img and nbdinfo reading these
 * answers is {@code BlockStatusClientsTest}'s.
 */
@Tag("unit")
class BlockStatusTest {

    private static final int BLOCK = 4096;
    private static final long SIZE = 1L << 20;
    private static final int HOLE = NbdWire.STATE_HOLE | NbdWire.STATE_ZERO;
    private final NbdFixture nbd = new NbdFixture();

    BlockStatusTest() {
        nbd.export("mem", Disk.memory("mem", SIZE, DiskConfig.DEFAULT));
    }

    @AfterEach
    void stop() {
        nbd.close();
    }

    /** A client in transmission on "mem" with structured replies and base:allocation. */
    private RawNbdClient withAllocationContext() {
        RawNbdClient c = nbd.raw().greet();
        c.negotiateStructuredReplies();
        List<RawNbdClient.OptReply> r = c.metaContext(NbdOption.SET_META_CONTEXT, "mem", NbdWire.BASE_ALLOCATION);
        assertThat(r).extracting(RawNbdClient.OptReply::kind).containsExactly(OptionReply.META_CONTEXT, OptionReply.ACK);
        return c.go("mem");
    }

    /** 512 bytes that are not all zeros. */
    private static byte[] sector() {
        byte[] b = new byte[512];
        b[0] = 1;
        return b;
    }

    private static String contextName(RawNbdClient.OptReply r) {
        ByteBuffer b = ByteBuffer.wrap(r.data());
        assertThat(b.getInt()).as("context id").isEqualTo(NbdWire.BASE_ALLOCATION_ID);
        return StandardCharsets.US_ASCII.decode(b).toString();
    }

    @Test
    void listAndSetMetaContextOfferBaseAllocationOnly() {
        try (RawNbdClient c = nbd.raw().greet()) {
            List<RawNbdClient.OptReply> all = c.metaContext(NbdOption.LIST_META_CONTEXT, "mem");
            assertThat(all).extracting(RawNbdClient.OptReply::kind).containsExactly(OptionReply.META_CONTEXT, OptionReply.ACK);
            assertThat(contextName(all.getFirst())).isEqualTo("base:allocation");
            assertThat(c.metaContext(NbdOption.LIST_META_CONTEXT, "mem", "base:")).hasSize(2);
            assertThat(c.metaContext(NbdOption.LIST_META_CONTEXT, "mem", "qemu:dirty-bitmap:x"))
                    .extracting(RawNbdClient.OptReply::kind).containsExactly(OptionReply.ACK);
            assertThat(c.metaContext(NbdOption.LIST_META_CONTEXT, "nope").getFirst().kind()).isEqualTo(OptionReply.ERR_UNKNOWN);

            assertThat(c.metaContext(NbdOption.SET_META_CONTEXT, "mem", "base:allocation").getFirst().kind())
                    .as("SET before structured replies").isEqualTo(OptionReply.ERR_INVALID);
            c.negotiateStructuredReplies();
            assertThat(c.metaContext(NbdOption.SET_META_CONTEXT, "mem", "base:"))
                    .as("SET wants full names").extracting(RawNbdClient.OptReply::kind).containsExactly(OptionReply.ACK);
            assertThat(c.option(NbdOption.SET_META_CONTEXT, new byte[] {0, 0, 0, 9}).getFirst().kind())
                    .isEqualTo(OptionReply.ERR_INVALID);
            assertThat(c.option(NbdOption.SET_META_CONTEXT, new byte[] {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 40}).getFirst()
                    .kind()).as("a query running past the option").isEqualTo(OptionReply.ERR_INVALID);
        }
    }

    @Test
    void answersFollowWritesAndTrimsAndHolesReadAsZeros() {
        try (RawNbdClient c = withAllocationContext()) {
            assertThat(c.blockStatus(1, 0, (int) SIZE, 0, NbdWire.BASE_ALLOCATION_ID))
                    .containsExactly(new Status(SIZE, HOLE));

            assertThat(c.write(2, 8 * BLOCK, sector(), 0).error()).isZero();
            assertThat(c.blockStatus(3, 0, (int) SIZE, 0, NbdWire.BASE_ALLOCATION_ID)).as("one sector written: its page")
                    .containsExactly(new Status(8 * BLOCK, HOLE), new Status(BLOCK, 0), new Status(SIZE - 9 * BLOCK, HOLE));

            byte[] pages = new byte[4 * BLOCK];
            java.util.Arrays.fill(pages, (byte) 7);
            assertThat(c.write(4, 16 * BLOCK, pages, 0).error()).isZero();
            assertThat(c.blockStatus(5, 12 * BLOCK, 12 * BLOCK, 0, NbdWire.BASE_ALLOCATION_ID))
                    .as("a query may start anywhere")
                    .containsExactly(new Status(4 * BLOCK, HOLE), new Status(4 * BLOCK, 0), new Status(4 * BLOCK, HOLE));
            assertThat(c.write(11, 24 * BLOCK, new byte[2 * BLOCK], 0).error()).isZero();
            assertThat(c.blockStatus(12, 24 * BLOCK, 2 * BLOCK, 0, NbdWire.BASE_ALLOCATION_ID))
                    .as("zeros written into a hole leave a hole that reads as zeros: the memory disk stores no zero page")
                    .containsExactly(new Status(2 * BLOCK, HOLE));

            c.send(NbdCommand.TRIM, 0, 6, 17 * BLOCK, 2 * BLOCK, null);
            assertThat(c.reply().error()).isZero();
            c.send(NbdCommand.WRITE_ZEROES, 0, 7, 8 * BLOCK, 512, null);
            assertThat(c.reply().error()).isZero();
            assertThat(c.blockStatus(8, 8 * BLOCK, 12 * BLOCK, 0, NbdWire.BASE_ALLOCATION_ID))
                    .as("a trimmed whole page is a hole again; zeroing part of a page leaves it data")
                    .containsExactly(new Status(BLOCK, 0), new Status(7 * BLOCK, HOLE), new Status(BLOCK, 0),
                            new Status(2 * BLOCK, HOLE), new Status(BLOCK, 0));

            assertThat(c.blockStatus(9, 0, (int) SIZE, NbdWire.CMD_FLAG_REQ_ONE, NbdWire.BASE_ALLOCATION_ID))
                    .as("REQ_ONE: one descriptor").containsExactly(new Status(8 * BLOCK, HOLE));
            assertThat(c.read(10, 0, 8 * BLOCK).data()).as("a hole reads as zeros").isEqualTo(new byte[8 * BLOCK]);
        }
    }

    @Test
    void blockStatusIsRefusedWithoutTheContextOrOutsideTheExport() {
        try (RawNbdClient c = nbd.open("mem", true)) {
            c.send(NbdCommand.BLOCK_STATUS, 0, 1, 0, BLOCK, null);
            RawNbdClient.Reply r = c.reply();
            assertThat(r.error()).isEqualTo(22);
            assertThat(r.message()).contains("base:allocation");
        }
        try (RawNbdClient c = withAllocationContext()) {
            c.send(NbdCommand.BLOCK_STATUS, 0, 1, SIZE - BLOCK, 2 * BLOCK, null);
            assertThat(c.reply().error()).as("past the end").isEqualTo(22);
            c.send(NbdCommand.BLOCK_STATUS, NbdWire.CMD_FLAG_FUA, 2, 0, BLOCK, null);
            assertThat(c.reply().error()).as("a flag BLOCK_STATUS does not take").isEqualTo(22);
            assertThat(c.blockStatus(3, 0, BLOCK, 0, NbdWire.BASE_ALLOCATION_ID)).as("the stream stays in step")
                    .containsExactly(new Status(BLOCK, HOLE));
        }
    }

    @Test
    void aContextSetForOneExportIsNotCarriedToAnother() {
        nbd.export("other", Disk.memory("other", SIZE, DiskConfig.DEFAULT));
        try (RawNbdClient c = nbd.raw().greet()) {
            c.negotiateStructuredReplies();
            c.metaContext(NbdOption.SET_META_CONTEXT, "mem", NbdWire.BASE_ALLOCATION);
            c.go("other");
            c.send(NbdCommand.BLOCK_STATUS, 0, 1, 0, BLOCK, null);
            assertThat(c.reply().error()).isEqualTo(22);
        }
    }

    @Test
    void cacheIsAcceptedAsTheNoOpItIs() {
        try (RawNbdClient c = nbd.open("mem", false)) {
            assertThat(TransmissionFlag.decode(c.transmissionFlags)).contains(TransmissionFlag.SEND_CACHE);
            c.send(NbdCommand.CACHE, 0, 1, 0, (int) SIZE, null);
            assertThat(c.reply().error()).isZero();
            c.send(NbdCommand.CACHE, 0, 2, SIZE, BLOCK, null);
            assertThat(c.reply().error()).as("past the end").isEqualTo(22);
        }
    }
}
