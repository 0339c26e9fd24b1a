package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.HoldingDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The journal's ordering rules, each shown on the journal alone with a device that holds a
 * record's write: records are handed on in sequence order, a record after a failed one is refused,
 * and no record an earlier run or an earlier array left on the device is ever replayed.
 */
@Tag("contract")
class StripeJournalTest {

    private static final int STRIPE = 4096;
    private static final long MIB = 1L << 20;

    private final List<String> events = new CopyOnWriteArrayList<>();
    /**
     * Memory disks end a write (FUA too) within its submit, so what a test sees is settled; the
     * journal's is writeback, the kind a power cut is modelled on.
     */
    private final Disk journalDisk = Disk.memory("journal", MIB, DiskConfig.writeback());
    private final Disk member = Disk.memory("member", MIB, DiskConfig.DEFAULT);
    /** The journal's device as the tests see it: it can keep a record's write back. */
    private final HoldingDevice device = new HoldingDevice(journalDisk);

    private StripeJournal journal(BlockDevice device) {
        return StripeJournal.on(device, 1, STRIPE, () -> List.of(member));
    }

    private static List<StripeJournal.Entry> block(int fill) {
        byte[] b = new byte[STRIPE];
        Arrays.fill(b, (byte) fill);
        return List.of(new StripeJournal.Entry(0, 0, STRIPE, MemorySegment.ofArray(b)));
    }

    private void append(StripeJournal j, long head, String name) {
        j.append(head, block(name.charAt(0)), () -> events.add(name), () -> events.add(name + " refused"));
    }

    /** A fresh journal with record A's write held and record B's landed after it. */
    private StripeJournal aHeldAndBLanded() {
        StripeJournal j = journal(device);
        j.format();
        device.holdNextWrite();
        append(j, 0, "A");
        append(j, 1, "B");
        return j;
    }

    /** The journal's power goes while a record's write is held (so it is lost), then comes back. */
    private void powerCutLosingTheHeldRecord() {
        Disk.powerCut(List.of(journalDisk));
        device.release();
        journalDisk.faults(DiskFaults.NONE);
    }

    @Test
    void aRecordThatLandsBeforeAnEarlierOneWaitsForIt() {
        aHeldAndBLanded();
        // B's record is durable, A's is not: a crash now replays neither (the replay stops at A),
        // so B's member writes must not have started.
        assertThat(device.held()).isEqualTo(1);
        assertThat(events).isEmpty();
        device.release();
        assertThat(events).containsExactly("A", "B");
    }

    @Test
    void aRecordAfterOneThatFailedIsRefusedThoughItLanded() {
        StripeJournal j = aHeldAndBLanded();
        journalDisk.faults(new DiskFaults(false, true, false));
        device.release();
        assertThat(events).containsExactly("A refused", "B refused");
        assertThat(j.status().failed()).isTrue();
    }

    @Test
    void aRecordLeftBeyondTheReplaysEndIsNeverReplayedLater() {
        // Run 1: A's record is lost in a power cut, B's (the next sequence, two blocks on) landed;
        // B's head was never handed on, so B's bytes are not acknowledged anywhere.
        aHeldAndBLanded();
        powerCutLosingTheHeldRecord();

        // Run 2 replays nothing (the replay stops at A), then logs C in A's place and D in B's;
        // D's record is lost in the next power cut.
        StripeJournal second = journal(device);
        assertThat(second.replay(List.of(member))).isZero();
        append(second, 0, "C");
        device.holdNextWrite();
        append(second, 2, "D");
        powerCutLosingTheHeldRecord();

        // Run 3 replays C only: were run 2's sequences run 1's again, B would stand where D was
        // expected and its bytes, never acknowledged, would be written over the member.
        assertThat(journal(device).replay(List.of(member))).isEqualTo(1);
        assertThat(memberByte(0)).isEqualTo((byte) 'C');
        assertThat(memberByte(1)).isZero();
    }

    @Test
    void aNewJournalNeverReplaysWhatAnEarlierArrayLeftOnItsDevice() {
        StripeJournal old = journal(journalDisk);
        old.format();
        append(old, 1, "A");
        assertThat(events).containsExactly("A");

        // A new array on the same device, stopped (or cut) before it wrote any record.
        journal(journalDisk).format();
        assertThat(journal(journalDisk).replay(List.of(member))).isZero();
        assertThat(memberByte(1)).isZero();
    }

    /** The first byte of head {@code head}'s block on the member. */
    private byte memberByte(long head) {
        byte[] b = new byte[STRIPE];
        SyncIo.read(member, head * STRIPE, MemorySegment.ofArray(b));
        return b[0];
    }
}
