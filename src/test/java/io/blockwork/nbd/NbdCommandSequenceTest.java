package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.PassThroughDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdError;
import io.blockwork.nbd.protocol.NbdWire;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.junit.jupiter.api.Tag;

/**
 * Issue 13 acceptance 4 (NBD): generated sequences of transmission requests, valid and not
 * (unknown commands, wrong flags, zero, unaligned, oversized and out-of-range lengths and
 * offsets, writes to a read-only export), sent in pipelined batches and checked against a model:
 * a shadow copy of the disk and the spec's error rules. Every request is answered exactly once,
 * with the expected error, and every READ returns the model's bytes wherever no request of the
 * same batch touched them (the server may reorder requests that are in flight together). After
 * each sequence the server has no failure and holds no budget.
 */
@Tag("unit")
class NbdCommandSequenceTest {

    private static final int SIZE = 1 << 20;
    private static final int SECTOR = 512;
    private static final int MAX_BLOCK = 64 << 10; // the test server's maximum block size
    private static NbdFixture nbd;
    /** Behind the exports "rw" and "ro". */
    private static Model model;
    /** Behind "liar", whose device acknowledges some writes it never makes (the must-fail twin). */
    private static Model liar;

    /** A disk behind an export and the model of what it should hold. */
    private record Model(Disk disk, byte[] shadow) {
        Model(Disk disk) {
            this(disk, new byte[SIZE]);
        }

        byte[] contents() {
            byte[] all = new byte[SIZE];
            SyncIo.read(disk, 0, MemorySegment.ofArray(all));
            return all;
        }
    }

    @BeforeContainer
    static void server() {
        nbd = new NbdFixture(NbdLimits.DEFAULT.withMaxBlockBytes(MAX_BLOCK).withMaxInFlightBytes(1 << 20));
        model = new Model(Disk.memory("seq", SIZE, DiskConfig.DEFAULT));
        nbd.export("rw", model.disk());
        nbd.export(NbdExport.of("ro", model.disk()).readOnly(true));
        liar = new Model(Disk.memory("liar", SIZE, DiskConfig.DEFAULT));
        nbd.export("liar", new WriteDroppingDevice(liar.disk()));
    }

    @AfterContainer
    static void stop() {
        nbd.close();
    }

    /** One request; {@code type} may be a command this server does not know. */
    record Request(int type, int flags, long offset, int length, long seed) {
        NbdCommand command() {
            return NbdCommand.of(type);
        }

        boolean writesData() {
            return type == NbdCommand.WRITE.code();
        }
    }

    @Provide
    Arbitrary<List<List<Request>>> sessions() {
        Arbitrary<Integer> types = Arbitraries.frequency(Tuple.of(6, NbdCommand.READ.code()),
                Tuple.of(6, NbdCommand.WRITE.code()), Tuple.of(2, NbdCommand.FLUSH.code()),
                Tuple.of(2, NbdCommand.TRIM.code()), Tuple.of(2, NbdCommand.WRITE_ZEROES.code()),
                Tuple.of(1, NbdCommand.CACHE.code()), Tuple.of(1, NbdCommand.BLOCK_STATUS.code()),
                Tuple.of(1, NbdCommand.RESIZE.code()), Tuple.of(1, 9), Tuple.of(1, 0xffff));
        Arbitrary<Integer> flags = Arbitraries.frequency(Tuple.of(10, 0), Tuple.of(4, NbdWire.CMD_FLAG_FUA),
                Tuple.of(2, NbdWire.CMD_FLAG_NO_HOLE), Tuple.of(1, NbdWire.CMD_FLAG_DF),
                Tuple.of(1, NbdWire.CMD_FLAG_FAST_ZERO), Tuple.of(1, 0x8000));
        Arbitrary<Long> offsets = Arbitraries.frequency(
                Tuple.of(12, Arbitraries.integers().between(0, SIZE / SECTOR - 1).map(s -> (long) s * SECTOR)),
                Tuple.of(1, Arbitraries.longs().between(0, SIZE)),
                Tuple.of(1, Arbitraries.of((long) SIZE, SIZE - 512L, -512L, Long.MIN_VALUE, 1L << 40))).flatMap(a -> a);
        Arbitrary<Integer> lengths = Arbitraries.frequency(
                Tuple.of(12, Arbitraries.integers().between(1, 16).map(s -> s * SECTOR)),
                Tuple.of(1, Arbitraries.integers().between(0, 70_000)),
                Tuple.of(1, Arbitraries.of(0, MAX_BLOCK, MAX_BLOCK + SECTOR, 1 << 30))).flatMap(a -> a);
        Arbitrary<Request> requests = Combinators.combine(types, flags, offsets, lengths, Arbitraries.longs())
                .as(Request::new)
                // WRITE payloads are sent: keep them within what is worth sending (bigger ones are
                // refused by the server after it reads and drops them, up to 32 MiB)
                .filter(r -> !r.writesData() || r.length() <= 2 * MAX_BLOCK);
        return requests.list().ofMinSize(1).ofMaxSize(12).list().ofMinSize(1).ofMaxSize(6);
    }

    @Property(tries = 100)
    void everyRequestIsAnsweredOnceAsTheSpecSaysAndReadsReturnTheModelsBytes(
            @ForAll("sessions") List<List<Request>> batches, @ForAll boolean structured, @ForAll boolean readOnly) {
        session(model, readOnly ? "ro" : "rw", batches, structured, readOnly);
    }

    /**
     * The must-fail twin: the same checks catch a device that acknowledges writes it drops, on a
     * session a property run could generate (a write, then a read of it in a later batch).
     */
    @Example
    void aDeviceThatAcknowledgesWritesItDropsIsCaught() {
        Request write = new Request(NbdCommand.WRITE.code(), 0, 8 * SECTOR, 8 * SECTOR, 42);
        Request read = new Request(NbdCommand.READ.code(), 0, 8 * SECTOR, 8 * SECTOR, 0);
        assertThatThrownBy(() -> session(liar, "liar", List.of(List.of(write), List.of(read)), true, false))
                .isInstanceOf(AssertionError.class).hasMessageContaining("sector 8");
    }

    /** One connection's batches against {@code export}, checked against {@code m}. */
    private static void session(Model m, String export, List<List<Request>> batches, boolean structured,
                                boolean readOnly) {
        System.arraycopy(m.contents(), 0, m.shadow(), 0, SIZE);
        try (RawNbdClient c = nbd.open(export, structured)) {
            long handle = 1;
            for (List<Request> batch : batches) {
                handle = runBatch(m, c, batch, handle, readOnly);
            }
            c.disconnect();
            assertThat(c.closedAfterDraining()).isTrue();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> nbd.server.status().connections() == 0);
        NbdServerStatus s = nbd.server.status();
        assertThat(s.failures()).as("server failures").isZero();
        assertThat(s.bytesInFlight()).isZero();
        assertThat(m.contents()).as("the disk after the session").isEqualTo(m.shadow());
    }

    /** Acknowledges every WRITE as done but never passes it on: a disk that loses what it was given. */
    private static final class WriteDroppingDevice extends PassThroughDevice {
        WriteDroppingDevice(BlockDevice below) {
            super("liar", below);
        }

        @Override
        protected void dispatch(Bio bio) {
            if (bio.op() == BioOp.WRITE) {
                bio.endio();
            } else {
                super.dispatch(bio);
            }
        }
    }

    /**
     * Sends a batch pipelined (from another thread, as a real client does, so neither side can
     * block the other), then checks every reply; returns the next free handle.
     */
    private static long runBatch(Model m, RawNbdClient c, List<Request> batch, long firstHandle, boolean readOnly) {
        Map<Long, Request> sent = new LinkedHashMap<>();
        Map<Long, byte[]> payloads = new HashMap<>();
        long h = firstHandle;
        for (Request r : batch) {
            if (r.writesData()) {
                byte[] payload = new byte[r.length()];
                new Random(r.seed()).nextBytes(payload);
                payloads.put(h, payload);
            }
            sent.put(h++, r);
        }
        Thread sender = Thread.ofVirtual().start(() -> sent.forEach((handle, r) ->
                c.sendRaw(NbdWire.REQUEST_MAGIC, r.type(), r.flags(), handle, r.offset(), r.length(), payloads.get(handle))));
        Map<Long, RawNbdClient.Reply> replies = new HashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            RawNbdClient.Reply reply = c.reply();
            assertThat(sent).as("reply to a handle that was sent").containsKey(reply.handle());
            assertThat(replies.put(reply.handle(), reply)).as("second reply to %d", reply.handle()).isNull();
        }
        try {
            sender.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }

        // What each sector may hold after the batch: one candidate per request that changed it.
        Map<Integer, List<byte[]>> candidates = new HashMap<>();
        byte[] before = m.shadow().clone();
        for (Map.Entry<Long, Request> e : sent.entrySet()) {
            Request r = e.getValue();
            NbdError want = expectedError(r, readOnly);
            assertThat(replies.get(e.getKey()).error()).as("%s", r).isEqualTo(want == null ? 0 : want.code());
            if (want != null || !r.command().modifies()) {
                continue;
            }
            byte[] payload = payloads.get(e.getKey());
            for (int at = (int) r.offset(); at < r.offset() + r.length(); at += SECTOR) {
                byte[] value = payload == null ? new byte[SECTOR]
                        : Arrays.copyOfRange(payload, at - (int) r.offset(), at - (int) r.offset() + SECTOR);
                candidates.computeIfAbsent(at / SECTOR, k -> new ArrayList<>()).add(value);
            }
        }
        for (Map.Entry<Long, Request> e : sent.entrySet()) {
            Request r = e.getValue();
            if (r.command() == NbdCommand.READ && expectedError(r, readOnly) == null) {
                checkRead(r, replies.get(e.getKey()).data(), before, candidates);
            }
        }
        // Requests in flight together may run in any order: a sector two of them changed holds
        // either's bytes. The model takes what the disk holds, once it checked it is one of them.
        byte[] now = m.contents();
        candidates.forEach((sector, values) -> {
            int at = sector * SECTOR;
            byte[] actual = Arrays.copyOfRange(now, at, at + SECTOR);
            assertThat(values.stream().anyMatch(v -> Arrays.equals(v, actual)))
                    .as("sector %d holds what one of the batch's requests put there", sector).isTrue();
            System.arraycopy(actual, 0, m.shadow(), at, SECTOR);
        });
        return h;
    }

    /** A READ's bytes, wherever no request of its batch changed them, are the model's. */
    private static void checkRead(Request r, byte[] data, byte[] before, Map<Integer, List<byte[]>> changed) {
        int off = (int) r.offset();
        assertThat(data).hasSize(r.length());
        for (int s = off / SECTOR; s < (off + r.length()) / SECTOR; s++) {
            if (!changed.containsKey(s)) {
                int at = s * SECTOR;
                assertThat(Arrays.copyOfRange(data, at - off, at - off + SECTOR)).as("%s, sector %d", r, s)
                        .isEqualTo(Arrays.copyOfRange(before, at, at + SECTOR));
            }
        }
    }

    /**
     * The spec's answer to a request, in the order the server checks: what it does not serve,
     * a read-only export, flags, FLUSH's zero range, empty requests, the maximum block size, the
     * export's end (ENOSPC for writes), alignment. Null: success.
     */
    static NbdError expectedError(Request r, boolean readOnly) {
        NbdCommand cmd = r.command();
        // BLOCK_STATUS: these sessions select no meta context, so it is refused; CACHE is served
        if (cmd == null || cmd == NbdCommand.BLOCK_STATUS || cmd == NbdCommand.RESIZE) {
            return NbdError.EINVAL;
        }
        if (readOnly && cmd.modifies()) {
            return NbdError.EPERM;
        }
        int allowed = cmd == NbdCommand.CACHE ? 0
                : (readOnly ? 0 : NbdWire.CMD_FLAG_FUA) | (cmd == NbdCommand.WRITE_ZEROES ? NbdWire.CMD_FLAG_NO_HOLE : 0);
        if ((r.flags() & ~allowed) != 0) {
            return NbdError.EINVAL;
        }
        if (cmd == NbdCommand.FLUSH) {
            return r.offset() == 0 && r.length() == 0 ? null : NbdError.EINVAL;
        }
        if (r.length() == 0) {
            return NbdError.EINVAL;
        }
        if ((cmd == NbdCommand.READ || cmd == NbdCommand.WRITE) && r.length() > MAX_BLOCK) {
            return NbdError.EINVAL;
        }
        if (r.offset() < 0 || r.offset() > SIZE || r.length() > SIZE - r.offset()) {
            return cmd == NbdCommand.WRITE || cmd == NbdCommand.WRITE_ZEROES ? NbdError.ENOSPC : NbdError.EINVAL;
        }
        if (((r.offset() | r.length()) & (SECTOR - 1)) != 0) {
            return NbdError.EINVAL;
        }
        return null;
    }
}
