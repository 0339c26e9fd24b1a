package io.blockwork.engine.dm.thin;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.dm.MappedDevice;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 2: power fails on the metadata and data disks (both writeback) at random points while
 * three thin volumes take writes, FUA writes, discards and flushes (one of them the origin of a
 * snapshot, so first writes break sharing, and metadata commits every 20 ms besides), then the
 * pool is opened again. Twelve rounds on the same pool, each ending in a power failure:
 * <ul>
 *   <li>every sector holds what the last write acknowledged durable (by a completed flush, or
 *       FUA) put there, or what a later write or discard put there, never anything else: each
 *       written sector names its volume, write and position, so a sector of another volume, or
 *       a torn or stale one, is caught;
 *   <li>the snapshot reads exactly as when it was taken;
 *   <li>the metadata checks clean: no mapping names a free block, every reference count equals
 *       the mappings naming the block; and no data block is mapped by two volumes unless one is
 *       the snapshot of the other.
 * </ul>
 */
@Tag("contract")
class ThinCrashTest {

    private static final int SECTOR = 512;
    private static final long VOLUME = 4L << 20;
    private static final int SECTORS = (int) (VOLUME / SECTOR);
    private static final int VOLUMES = 3;
    private static final int ROUNDS = Integer.getInteger("thin.crash.rounds", 12);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final MemorySegment ZEROS = MemorySegment.ofArray(new byte[SECTOR]);

    private static final boolean LOG = Boolean.getBoolean("thin.crash.log");
    private final AtomicLong seqs = new AtomicLong(1);

    /** What each sector of one volume may hold after a crash: the durable write, or any issued after it. */
    private static final class Expectation {
        final long[] durable = new long[SECTORS];
        final Map<Integer, List<Long>> since = new HashMap<>();
        final Map<Integer, List<String>> log = new HashMap<>();

        synchronized void issued(int first, int count, long seq) {
            for (int s = first; s < first + count; s++) {
                since.computeIfAbsent(s, k -> new ArrayList<>()).add(seq);
                if (LOG) log.computeIfAbsent(s, k -> new ArrayList<>()).add("issue " + seq + " [" + first + "+" + count + "]");
            }
        }

        /** The last issued value of each sector becomes durable (a flush completed). */
        synchronized void flushed() {
            since.forEach((s, l) -> {
                durable[s] = l.getLast();
                if (LOG) log.computeIfAbsent(s, k -> new ArrayList<>()).add("flushed " + l.getLast());
            });
            since.clear();
        }

        /** A FUA write completed: durable for its own sectors. */
        synchronized void fua(int first, int count, long seq) {
            for (int s = first; s < first + count; s++) {
                durable[s] = seq;
                since.remove(s);
                if (LOG) log.computeIfAbsent(s, k -> new ArrayList<>()).add("fua " + seq);
            }
        }

        synchronized boolean allowed(int s, long seq) {
            return durable[s] == seq || since.getOrDefault(s, List.of()).contains(seq);
        }

        /** After a crash has been checked: what survived is the new durable state. */
        synchronized void settle(long[] actual) {
            System.arraycopy(actual, 0, durable, 0, SECTORS);
            since.clear();
            log.clear();
        }
    }

    @Test
    void acknowledgedWritesSurvivePowerFailuresAtRandomPointsUnderLoad() throws Exception {
        ThinConfig config = ThinConfig.defaults().withNodeCapacity(16).withCommitPeriod(Duration.ofMillis(20));
        Random random = new Random(19);
        try (ThinRig rig = new ThinRig(4L << 20, 48L << 20, config, "")) {
            List<MappedDevice> vols = new ArrayList<>();
            List<Expectation> expect = new ArrayList<>();
            for (int v = 0; v < VOLUMES; v++) {
                vols.add(rig.newThin("v" + v, v, VOLUME));
                expect.add(new Expectation());
            }
            // Volume 0 gets contents, then a snapshot: its writes under load break sharing.
            long first = issue(vols.get(0), 0, 0, SECTORS, expect.get(0), BioFlags.NONE);
            assertThat(first).isPositive();
            SyncIo.flush(vols.get(0));
            expect.get(0).flushed();
            rig.snapshot(vols.get(0), 0, 10);
            long[] snapshot = expect.get(0).durable.clone();

            for (int round = 0; round < ROUNDS; round++) {
                CountDownLatch stopped = new CountDownLatch(VOLUMES);
                List<Thread> load = new ArrayList<>();
                for (int v = 0; v < VOLUMES; v++) {
                    MappedDevice dev = vols.get(v);
                    Expectation e = expect.get(v);
                    int vol = v;
                    long seed = random.nextLong();
                    load.add(Thread.ofPlatform().name("crash-load-" + v).start(() -> {
                        try {
                            drive(dev, vol, e, new Random(seed));
                        } finally {
                            stopped.countDown();
                        }
                    }));
                }
                // The failure comes at a random point: after a random number of the load's operations.
                long target = seqs.get() + 50 + random.nextInt(1500);
                while (seqs.get() < target && stopped.getCount() > 0) {
                    Thread.onSpinWait();
                }
                rig.powerFailure();
                assertThat(stopped.await(30, TimeUnit.SECONDS)).as("the load stops once I/O fails").isTrue();
                for (Thread t : load) {
                    t.join();
                }
                rig.reboot();
                vols.clear();
                for (int v = 0; v < VOLUMES; v++) {
                    vols.add(rig.thin("v" + v, v, VOLUME));
                    verify(vols.get(v), v, expect.get(v), round, rig.metadata());
                }
                MappedDevice snap = rig.thin("snap", 10, VOLUME);
                long[] now = readSeqs(snap, 0, round);
                assertThat(now).as("round %d: the snapshot is unchanged", round).isEqualTo(snapshot);
                rig.remove(snap);
                checkMetadata(rig.metadata(), round);
            }
        }
    }

    /** Random writes (some FUA), discards and flushes until an I/O fails. */
    private void drive(MappedDevice dev, int vol, Expectation e, Random r) {
        while (true) {
            int op = r.nextInt(100);
            int first = r.nextInt(SECTORS);
            int count = Math.min(SECTORS - first, 1 + r.nextInt(r.nextBoolean() ? 8 : 160));
            if (op < 12) {
                if (!SyncIo.execute(dev, BioOp.FLUSH, 0, 0, BioFlags.NONE, null).ok()) {
                    return;
                }
                e.flushed();
            } else if (op < 22) {
                e.issued(first, count, 0);
                if (!SyncIo.execute(dev, BioOp.DISCARD, (long) first * SECTOR, (long) count * SECTOR, BioFlags.NONE, null).ok()) {
                    return;
                }
            } else {
                BioFlags flags = op < 30 ? BioFlags.FUA : BioFlags.NONE;
                if (issue(dev, vol, first, count, e, flags) < 0) {
                    return;
                }
            }
        }
    }

    /** Writes sectors stamped with (volume, write, sector); returns the write's sequence, or -1 if it failed. */
    private long issue(MappedDevice dev, int vol, int first, int count, Expectation e, BioFlags flags) {
        long seq = seqs.getAndIncrement();
        MemorySegment buf = MemorySegment.ofArray(new byte[count * SECTOR]);
        for (int i = 0; i < count; i++) {
            stamp(buf.asSlice((long) i * SECTOR, SECTOR), vol, seq, first + i);
        }
        e.issued(first, count, seq);
        IoStatus s = SyncIo.execute(dev, BioOp.WRITE, (long) first * SECTOR, buf.byteSize(), flags, buf);
        if (!s.ok()) {
            return -1;
        }
        if (flags.fua()) {
            e.fua(first, count, seq);
        }
        return seq;
    }

    private static void stamp(MemorySegment sector, int vol, long seq, int index) {
        sector.set(U64, 0, vol + 1);
        sector.set(U64, 8, seq);
        sector.set(U64, 16, index);
        for (int b = 24; b < SECTOR; b++) {
            sector.set(ValueLayout.JAVA_BYTE, b, (byte) (seq * 31 + index + b));
        }
    }

    /** Each sector's write sequence (0 for zeros), checking that it is a whole sector stamped for this volume and place. */
    private static long[] readSeqs(MappedDevice dev, int vol, int round) {
        MemorySegment all = ThinRig.read(dev, 0, (int) VOLUME);
        long[] seqs = new long[SECTORS];
        MemorySegment expected = MemorySegment.ofArray(new byte[SECTOR]);
        for (int s = 0; s < SECTORS; s++) {
            MemorySegment sector = all.asSlice((long) s * SECTOR, SECTOR);
            long seq = sector.get(U64, 8);
            if (seq == 0 && sector.get(U64, 0) == 0) {
                if (sector.mismatch(ZEROS) != -1) {
                    assertThat(sector.toArray(ValueLayout.JAVA_BYTE)).as("round %d: volume %d sector %d", round, vol, s).containsOnly(0);
                }
                continue;
            }
            stamp(expected, vol, seq, s);
            if (sector.mismatch(expected) != -1) {
                assertThat(sector.mismatch(expected)).as("round %d: volume %d sector %d holds another volume's, place's"
                        + " or a torn sector (volume %d, write %d, sector %d)", round, vol, s, sector.get(U64, 0) - 1, seq,
                        sector.get(U64, 16)).isEqualTo(-1);
            }
            seqs[s] = seq;
        }
        return seqs;
    }

    private static void verify(MappedDevice dev, int vol, Expectation e, int round, PoolMetadata pmd) {
        long[] actual = readSeqs(dev, vol, round);
        for (int s = 0; s < SECTORS; s++) {
            if (e.allowed(s, actual[s])) {
                continue;
            }
            long vblock = (long) s * SECTOR / ThinRig.BLOCK;
            assertThat(e.allowed(s, actual[s])).as("round %d: volume %d sector %d holds write %d; durable was %d,"
                    + " issued since %s; its block %d maps to %s; history %s", round, vol, s, actual[s], e.durable[s], e.since.get(s),
                    vblock, pmd.mappings(vol).get(vblock), e.log.get(s)).isTrue();
        }
        e.settle(actual);
    }

    private static void checkMetadata(PoolMetadata pmd, int round) {
        assertThat(MetadataCheck.run(pmd)).as("round %d: metadata check", round).isEmpty();
        Map<Long, Long> owner = new HashMap<>();
        for (long dev : pmd.devices()) {
            for (long block : pmd.mappings(dev).values()) {
                Long other = owner.put(block, dev);
                boolean related = other == null || other == dev || (Math.min(other, dev) == 0 && Math.max(other, dev) == 10);
                assertThat(related).as("round %d: data block %d mapped by volumes %d and %d", round, block, other, dev).isTrue();
            }
        }
    }
}
