package io.blockwork.engine.dm.targets.logwrites;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.RecordingDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.targets.logwrites.LogFormat.Flag;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** dm-log-writes: what reaches the log, when, and in which order; the on-disk format; its failures. */
@Tag("unit")
class LogWritesTargetTest {

    private static final int BLOCK = 4096;

    private final DmTestDevices devs = new DmTestDevices();
    private Disk data;
    private Disk logDisk;

    @BeforeEach
    void setUp() {
        data = devs.disk("d0", 4L << 20);
        logDisk = devs.disk("log", 8L << 20, DiskConfig.DEFAULT);
    }

    private MappedDevice logWrites() {
        return devs.create("lw", "0 8192 log-writes d0 log\n");
    }

    private static MemorySegment block(int fill) {
        return MemorySegment.ofArray(new byte[BLOCK]).fill((byte) fill);
    }

    private static void write(BlockDevice d, long offset, int fill) {
        SyncIo.write(d, offset, block(fill));
    }

    private static void writeFua(BlockDevice d, long offset, int fill) {
        SyncIo.write(d, offset, block(fill), BioFlags.FUA);
    }

    /** The log as one line per entry: "write 0+8", "write 16+8 FUA", "flush", "mark m1", "discard 8+8". */
    private List<String> logged() {
        WriteLog log = WriteLog.open(logDisk);
        List<String> out = new ArrayList<>();
        for (long i = 0; i < log.entryCount(); i++) {
            out.add(describe(log.entry(i)));
        }
        return out;
    }

    private static String describe(WriteLog.Entry e) {
        if (e.is(Flag.MARK)) {
            return "mark " + e.mark();
        }
        if (e.is(Flag.DISCARD)) {
            return "discard " + e.sector() + "+" + e.sectors();
        }
        if (e.sectors() == 0) {
            return "flush";
        }
        return "write " + e.sector() + "+" + e.sectors() + (e.is(Flag.FUA) ? " FUA" : "") + (e.is(Flag.FLUSH) ? " FLUSH" : "");
    }

    @Test
    void writesReachTheLogWithTheFlushAfterThemFuaAtOnceMarksWhenSent() {
        MappedDevice lw = logWrites();
        write(lw, 0, 'a');
        write(lw, BLOCK, 'b');
        assertThat(lw.statusText()).as("nothing is durable yet").isEqualTo("0 8192 log-writes 0 0\n");

        SyncIo.flush(lw);
        writeFua(lw, 2 * BLOCK, 'd');
        write(lw, 3 * BLOCK, 'c');
        lw.message(0, "mark m1");
        assertThat(logged()).containsExactly("write 0+8", "write 8+8", "flush", "write 16+8 FUA", "mark m1");
        assertThat(lw.statusText()).as("entries, highest log sector: 1 super + 9 + 9 + 1 + 9 + 1")
                .isEqualTo("0 8192 log-writes 5 29\n");

        lw.remove();
        assertThat(logged()).as("the kernel's dtr: unflushed writes, then the end mark")
                .containsExactly("write 0+8", "write 8+8", "flush", "write 16+8 FUA", "mark m1",
                        "write 24+8", "mark dm-log-writes-end");
    }

    @Test
    void aWriteStillInFlightWhenTheFlushIsMappedWaitsForTheNextFlush() {
        RecordingDevice slow = devs.add(new RecordingDevice(4L << 20, DeviceLimits.of(512)));
        MappedDevice lw = devs.create("lw", "0 8192 log-writes rec log\n");
        write(lw, 0, 'a');
        slow.hold(true);
        SyncIo.Waiter inFlight = new SyncIo.Waiter();
        lw.submit(Bio.write(BLOCK, block('b'), BioFlags.NONE, inFlight));
        slow.hold(false);
        SyncIo.flush(lw);
        assertThat(inFlight.isDone()).isFalse();
        assertThat(logged()).containsExactly("write 0+8", "flush");

        slow.release();
        assertThat(inFlight.await()).isEqualTo(IoStatus.OK);
        SyncIo.flush(lw);
        assertThat(logged()).containsExactly("write 0+8", "flush", "write 8+8", "flush");
    }

    @Test
    void aFlushThatCompletesFirstAlsoLogsTheWritesOfAnEarlierFlushStillInFlight() {
        RecordingDevice slow = devs.add(new RecordingDevice(4L << 20, DeviceLimits.of(512)));
        MappedDevice lw = devs.create("lw", "0 8192 log-writes rec log\n");
        write(lw, 0, 'a');
        slow.hold(true);
        SyncIo.Waiter first = new SyncIo.Waiter();
        lw.submit(Bio.flush(first));
        slow.hold(false);
        write(lw, BLOCK, 'b');
        SyncIo.flush(lw);
        assertThat(logged()).as("the second flush made 'a' durable too: it completed before that flush was sent")
                .containsExactly("write 0+8", "write 8+8", "flush");

        slow.release();
        assertThat(first.await()).isEqualTo(IoStatus.OK);
        assertThat(logged()).containsExactly("write 0+8", "write 8+8", "flush", "flush");
    }

    @Test
    void aFuaWriteCutsWhatItOverwroteOutOfOlderWritesStillWaitingForAFlush() {
        MappedDevice lw = logWrites();
        SyncIo.write(lw, 0, MemorySegment.ofArray(new byte[4 * BLOCK]).fill((byte) 1));
        write(lw, 8 * BLOCK, 3);
        writeFua(lw, BLOCK, 2);
        writeFua(lw, 8 * BLOCK, 4);
        SyncIo.flush(lw);
        assertThat(logged()).as("the FUA writes first; of the older writes only what they did not overwrite, after them")
                .containsExactly("write 8+8 FUA", "write 64+8 FUA", "write 0+8", "write 16+16", "flush");

        Disk replica = Disk.memory("replica", 4L << 20, DiskConfig.DEFAULT);
        WriteLog log = WriteLog.open(logDisk);
        LogReplayer.replay(log, replica, 0, log.entryCount() - 1);
        MemorySegment got = MemorySegment.ofArray(new byte[BLOCK]);
        int[] expected = {1, 2, 1, 1};
        for (int i = 0; i < expected.length; i++) {
            SyncIo.read(replica, (long) i * BLOCK, got);
            assertThat(got.mismatch(block(expected[i]))).as("block %d", i).isEqualTo(-1L);
        }
        SyncIo.read(replica, 8 * BLOCK, got);
        assertThat(got.mismatch(block(4))).as("the FUA write, not the older one under it").isEqualTo(-1L);
    }

    /** Issue 30: the message counts in the right number ("1 entry", not "1 entries"). */
    @Test
    void replayingPastTheEndNamesTheLogsEntriesInTheRightNumber() {
        MappedDevice lw = logWrites();
        lw.message(0, "mark only");
        WriteLog log = WriteLog.open(logDisk);
        assertThat(log.entryCount()).isEqualTo(1);
        Disk replica = Disk.memory("replica", 4L << 20, DiskConfig.DEFAULT);
        assertThatThrownBy(() -> LogReplayer.replay(log, replica, 0, 1)).isInstanceOf(WriteLogException.class)
                .hasMessage("the log has 1 entry; there is no entry 1");
        assertThatThrownBy(() -> new LogReplayer(log, replica, 2)).hasMessageStartingWith("the log has 1 entry;");
    }

    @Test
    void readsAreNotLoggedDiscardsAndWriteZeroesAreLoggedAsDiscards() {
        MappedDevice lw = logWrites();
        write(lw, 0, 'a');
        SyncIo.read(lw, 0, MemorySegment.ofArray(new byte[BLOCK]));
        SyncIo.discard(lw, BLOCK, 2 * BLOCK);
        SyncIo.writeZeroes(lw, 4 * BLOCK, BLOCK);
        SyncIo.flush(lw);
        assertThat(logged()).containsExactly("write 0+8", "discard 8+16", "discard 32+8", "flush");
        assertThat(lw.statusText()).as("discards take one log sector each")
                .isEqualTo("0 8192 log-writes 4 12\n");
    }

    @Test
    void theLogIsInTheKernelsFormat() {
        MappedDevice lw = logWrites();
        writeFua(lw, 3 * BLOCK, 0x5a);
        lw.message(0, "mark here");
        ByteBuffer log = ByteBuffer.allocate(12 * 512).order(ByteOrder.LITTLE_ENDIAN);
        SyncIo.read(logDisk, 0, MemorySegment.ofBuffer(log));

        assertThat(log.getLong(0)).as("magic").isEqualTo(0x6a736677736872L);
        assertThat(log.getLong(8)).as("version").isEqualTo(1);
        assertThat(log.getLong(16)).as("nr_entries").isEqualTo(2);
        assertThat(log.getInt(24)).as("sectorsize").isEqualTo(512);

        assertThat(log.getLong(512)).as("entry 0: sector").isEqualTo(24);
        assertThat(log.getLong(520)).as("nr_sectors").isEqualTo(8);
        assertThat(log.getLong(528)).as("flags: FUA").isEqualTo(2);
        assertThat(log.getLong(536)).as("data_len").isEqualTo(0);
        for (int i = 1024; i < 1024 + BLOCK; i++) {
            assertThat(log.get(i)).as("data byte %d", i).isEqualTo((byte) 0x5a);
        }
        int mark = 1024 + BLOCK;
        assertThat(log.getLong(mark + 16)).as("entry 1: flags MARK").isEqualTo(8);
        assertThat(log.getLong(mark + 24)).as("data_len").isEqualTo(4);
        assertThat(new String(log.array(), mark + 32, 4, java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("here");
    }

    @Test
    void replayRebuildsTheDeviceAsItWasAtEveryEntry() {
        MappedDevice lw = logWrites();
        write(lw, 0, 1);
        SyncIo.flush(lw);
        writeFua(lw, 0, 2);
        SyncIo.discard(lw, 0, BLOCK);
        SyncIo.flush(lw);
        lw.message(0, "mark end");
        WriteLog log = WriteLog.open(logDisk);
        assertThat(log.entryCount()).isEqualTo(6);

        int[] expectedAfter = {1, 1, 2, 0, 0, 0};
        for (int n = 0; n < expectedAfter.length; n++) {
            Disk replica = Disk.memory("replica" + n, 4L << 20, DiskConfig.DEFAULT);
            LogReplayer.replay(log, replica, 0, n);
            MemorySegment got = MemorySegment.ofArray(new byte[BLOCK]);
            SyncIo.read(replica, 0, got);
            assertThat(got.mismatch(block(expectedAfter[n]))).as("after entry %d", n).isEqualTo(-1L);
        }
        assertThat(log.findNext(0, java.util.Set.of(Flag.FUA)).orElseThrow().index()).isEqualTo(2);
        assertThat(log.findNext(3, java.util.Set.of(Flag.FLUSH, Flag.FUA)).orElseThrow().index()).isEqualTo(4);
        assertThat(log.findMark("end").orElseThrow().index()).isEqualTo(5);
        assertThat(log.findMark("nope")).isEmpty();
    }

    @Test
    void aFailedFlushMakesNothingDurableItsWritesWaitForTheNextFlush() {
        MappedDevice lw = logWrites();
        write(lw, 0, 'a');
        data.faults(new DiskFaults(false, false, true));
        assertThat(SyncIo.execute(lw, BioOp.FLUSH, 0, 0, BioFlags.NONE, null)).isEqualTo(IoStatus.IO_ERROR);
        lw.message(0, "mark after-failed-flush");
        assertThat(logged()).containsExactly("mark after-failed-flush");

        data.faults(DiskFaults.NONE);
        SyncIo.flush(lw);
        assertThat(logged()).containsExactly("mark after-failed-flush", "write 0+8", "flush");
    }

    @Test
    void aFailedWriteIsNotLogged() {
        MappedDevice lw = logWrites();
        data.faults(new DiskFaults(false, true, false));
        assertThat(SyncIo.execute(lw, BioOp.WRITE, 0, BLOCK, BioFlags.FUA, block('x'))).isEqualTo(IoStatus.IO_ERROR);
        assertThat(SyncIo.execute(lw, BioOp.WRITE, BLOCK, BLOCK, BioFlags.NONE, block('y'))).isEqualTo(IoStatus.IO_ERROR);
        data.faults(DiskFaults.NONE);
        SyncIo.flush(lw);
        assertThat(logged()).containsExactly("flush");
    }

    @Test
    void aFullLogDeviceDisablesLoggingWhileIoGoesOn() {
        Disk tiny = devs.disk("tiny", 16 * 512, DiskConfig.DEFAULT);
        MappedDevice lw = devs.create("lw", "0 8192 log-writes d0 tiny\n");
        write(lw, 0, 'a');
        SyncIo.flush(lw);
        write(lw, BLOCK, 'b');
        SyncIo.flush(lw);
        assertThat(lw.statusText()).isEqualTo("0 8192 log-writes 2 10 logging_disabled\n");
        writeFua(lw, 2 * BLOCK, 'c');
        MemorySegment back = MemorySegment.ofArray(new byte[BLOCK]);
        SyncIo.read(data, 2 * BLOCK, back);
        assertThat(back.mismatch(block('c'))).as("the data still reaches the device").isEqualTo(-1L);
        assertThatThrownBy(() -> lw.message(0, "mark m"))
                .isInstanceOf(DmException.class).hasMessageContaining("logging is disabled: Ran out of space");
        WriteLog log = WriteLog.open(tiny);
        assertThat(log.entryCount()).as("the entries before it stay readable").isEqualTo(2);
    }

    @Test
    void aFailingLogDeviceDisablesLogging() {
        MappedDevice lw = logWrites();
        writeFua(lw, 0, 'a');
        logDisk.faults(new DiskFaults(false, true, true));
        writeFua(lw, BLOCK, 'b');
        assertThat(lw.statusText()).endsWith(" logging_disabled\n");
        logDisk.faults(DiskFaults.NONE);
        assertThat(logged()).containsExactly("write 0+8 FUA");
        lw.remove(); // nothing more is written to a disabled log
        assertThat(logged()).containsExactly("write 0+8 FUA");
    }

    @Test
    void aNewTableStartsANewLog() {
        MappedDevice lw = logWrites();
        writeFua(lw, 0, 'a');
        lw.remove();
        assertThat(logged()).hasSize(2);
        MappedDevice again = logWrites();
        assertThat(logged()).as("an empty super comes first").isEmpty();
        writeFua(again, BLOCK, 'b');
        assertThat(logged()).containsExactly("write 8+8 FUA");
    }

    @Test
    void aTableThatNeverBecomesLiveWritesNothing() {
        MappedDevice lw = logWrites();
        writeFua(lw, 0, 'a');
        MappedDevice other = devs.create("other", "0 8 zero\n");
        devs.disk("log2", 1L << 20, DiskConfig.DEFAULT);
        other.load("0 8192 log-writes d0 log2\n", devs);
        other.clear();
        assertThat(logged()).containsExactly("write 0+8 FUA");
        assertThatThrownBy(() -> WriteLog.open((BlockDevice) devs.find("log2")))
                .isInstanceOf(WriteLogException.class).hasMessageContaining("log2 holds no write log");
    }

    @Test
    void argumentsMessagesAndStatus() {
        MappedDevice lw = logWrites();
        assertThat(lw.tableText()).isEqualTo("0 8192 log-writes d0 log\n");
        assertThatThrownBy(() -> devs.create("x", "0 8192 log-writes d0 d0\n"))
                .isInstanceOf(TableException.class).hasMessageContaining("the log device d0 is also the logged device");
        devs.disk("big", 4L << 20, DiskConfig.DEFAULT.withLogicalBlockSize(4096));
        assertThatThrownBy(() -> devs.create("x", "0 8192 log-writes d0 big\n"))
                .isInstanceOf(TableException.class).hasMessageContaining("4096-byte blocks, larger than the 512-byte sectors");
        devs.disk("small", 1024, DiskConfig.DEFAULT);
        assertThatThrownBy(() -> devs.create("x", "0 8192 log-writes d0 small\n"))
                .isInstanceOf(TableException.class).hasMessageContaining("too small");
        assertThatThrownBy(() -> devs.create("x", "0 8192 log-writes d0\n"))
                .isInstanceOf(TableException.class).hasMessageContaining("Invalid argument count");
        assertThatThrownBy(() -> devs.create("x", "0 8192 log-writes d0 nosuch\n"))
                .isInstanceOf(TableException.class).hasMessageContaining("Log device lookup failed");
        assertThatThrownBy(() -> lw.message(0, "mark"))
                .isInstanceOf(DmException.class).hasMessageContaining("expect 2 arguments, got 1");
        assertThatThrownBy(() -> lw.message(0, "flush now"))
                .isInstanceOf(DmException.class).hasMessageContaining("Unrecognised log writes target message received: flush");
        assertThat(lw.lowerDevices()).containsExactlyInAnyOrder(data, logDisk);
    }

    @Test
    void aMarkLongerThanTheSectorIsCutAsTheKernelCutsIt() {
        MappedDevice lw = logWrites();
        String name = "m".repeat(600);
        lw.message(0, "mark " + name);
        WriteLog.Entry e = WriteLog.open(logDisk).entry(0);
        assertThat(e.mark()).isEqualTo("m".repeat(512 - 32 - 1));
    }

    @Test
    void damagedLogsAreReportedWithTheEntry() {
        MappedDevice lw = logWrites();
        write(lw, 0, 'a');
        SyncIo.flush(lw);
        lw.message(0, "mark m");
        byte[] bad = new byte[512];
        ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putLong(16, 0x400);
        SyncIo.write(logDisk, 512 + 512 + BLOCK, MemorySegment.ofArray(bad)); // entry 1, the flush
        WriteLog log = WriteLog.open(logDisk);
        assertThat(describe(log.entry(0))).isEqualTo("write 0+8");
        assertThatThrownBy(() -> log.entry(2))
                .isInstanceOf(WriteLogException.class).hasMessageContaining("entry 1 of the write log on log is damaged: unknown flags 0x400");

        Disk small = Disk.memory("small", BLOCK / 2, DiskConfig.DEFAULT);
        LogReplayer r = new LogReplayer(WriteLog.open(logDisk), small, 0);
        assertThatThrownBy(() -> r.replayThrough(0))
                .isInstanceOf(WriteLogException.class).hasMessageContaining("past the end of small");
        assertThatThrownBy(() -> r.replayThrough(9))
                .isInstanceOf(WriteLogException.class).hasMessageContaining("there is no entry 9");
    }

    @Test
    void entriesKeepTheirOrderUnderConcurrentWritersAndFlushes() throws Exception {
        MappedDevice lw = logWrites();
        int threads = 4;
        int perThread = 200;
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perThread; i++) {
                    long off = (long) (id * perThread + i % 50) * BLOCK;
                    if (i % 7 == 0) {
                        writeFua(lw, off, i);
                    } else {
                        write(lw, off, i);
                    }
                    if (i % 5 == 0) {
                        SyncIo.flush(lw);
                    }
                }
            }));
        }
        for (Thread t : ts) {
            t.join();
        }
        SyncIo.flush(lw);
        lw.message(0, "mark done");
        List<String> entries = logged();
        assertThat(entries.stream().filter(s -> s.startsWith("write")).count())
                .as("every write is logged once").isEqualTo((long) threads * perThread);
        assertThat(entries.getLast()).isEqualTo("mark done");
        assertThat(entries.get(entries.size() - 2)).isEqualTo("flush");
        Disk replica = Disk.memory("replica", 4L << 20, DiskConfig.DEFAULT);
        LogReplayer.replay(WriteLog.open(logDisk), replica, 0, entries.size() - 1);
        MemorySegment a = MemorySegment.ofArray(new byte[4 << 20]);
        MemorySegment b = MemorySegment.ofArray(new byte[4 << 20]);
        SyncIo.read(replica, 0, a);
        SyncIo.read(data, 0, b);
        assertThat(a.mismatch(b)).as("the full replay is the device").isEqualTo(-1L);
    }
}
