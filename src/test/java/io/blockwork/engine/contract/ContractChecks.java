package io.blockwork.engine.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The checks of the block-device contract, as plain methods so that a test can also run one
 * against a deliberately broken device and see it fail.
 */
public final class ContractChecks {

    private ContractChecks() {}

    public static MemorySegment random(long seed, int bytes) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return MemorySegment.ofArray(b);
    }

    public static MemorySegment read(BlockDevice d, long offset, int bytes) {
        MemorySegment into = MemorySegment.ofArray(new byte[bytes]);
        SyncIo.read(d, offset, into);
        return into;
    }

    public static void assertSame(MemorySegment actual, MemorySegment expected, String what) {
        long mismatch = actual.mismatch(expected);
        assertThat(mismatch).as("%s: first differing byte", what).isEqualTo(-1L);
    }

    static void assertZero(MemorySegment actual, String what) {
        assertSame(actual, MemorySegment.ofArray(new byte[(int) actual.byteSize()]), what);
    }

    private static void expect(DeviceUnderTest dut, MemorySegment actual, MemorySegment written, String what) {
        if (dut.retainsData()) {
            assertSame(actual, written, what);
        } else {
            assertZero(actual, what);
        }
    }

    static int lbs(BlockDevice d) {
        return d.limits().logicalBlockSize();
    }

    /** Writes at several places, some unaligned to pages and chunks, and reads each back. */
    public static void readAfterWrite(DeviceUnderTest dut) {
        BlockDevice d = dut.device();
        int lbs = lbs(d);
        long blocks = d.sizeBytes() / lbs;
        Random r = new Random(1);
        List<long[]> done = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            int len = lbs * (1 + r.nextInt(64));
            long off = lbs * (long) r.nextInt((int) Math.min(Integer.MAX_VALUE, blocks - len / lbs));
            // Keep the writes disjoint, so each can be checked on its own.
            boolean overlaps = done.stream().anyMatch(w -> off < w[0] + w[1] && w[0] < off + len);
            if (overlaps) {
                continue;
            }
            SyncIo.write(d, off, random(i, len));
            done.add(new long[] {off, len, i});
        }
        for (long[] w : done) {
            expect(dut, read(d, w[0], (int) w[1]), random(w[2], (int) w[1]), "write " + w[2] + " at " + w[0]);
        }
    }

    /** The first and the last logical block are addressable. */
    public static void firstAndLastBlocks(DeviceUnderTest dut) {
        BlockDevice d = dut.device();
        int lbs = lbs(d);
        long last = d.sizeBytes() - lbs;
        SyncIo.write(d, 0, random(10, lbs));
        SyncIo.write(d, last, random(11, lbs));
        expect(dut, read(d, 0, lbs), random(10, lbs), "first block");
        expect(dut, read(d, last, lbs), random(11, lbs), "last block");
    }

    /** I/O larger than the device's max I/O and across its boundaries is split and reassembled. */
    public static void largeIoAcrossBoundaries(DeviceUnderTest dut) {
        BlockDevice d = dut.device();
        int lbs = lbs(d);
        long boundary = d.limits().boundaryBytes();
        long unit = boundary > 0 ? boundary : d.limits().maxIoBytes();
        int len = (int) Math.min(d.sizeBytes() / 2, Math.min(8L << 20, unit * 2 + 3L * lbs));
        len -= len % lbs;
        long off = boundary > 0 ? Math.max(0, boundary - lbs) : lbs;
        SyncIo.write(d, off, random(20, len));
        expect(dut, read(d, off, len), random(20, len), "large write across boundaries");
    }

    /** Misaligned, empty and out-of-range requests fail with INVALID and change nothing. */
    public static void rejectsBadGeometry(DeviceUnderTest dut) {
        BlockDevice d = dut.device();
        int lbs = lbs(d);
        SyncIo.write(d, 0, random(30, lbs));
        MemorySegment buf = MemorySegment.ofArray(new byte[lbs]);
        MemorySegment odd = MemorySegment.ofArray(new byte[lbs + 1]);
        assertThat(SyncIo.execute(d, BioOp.WRITE, d.sizeBytes(), lbs, BioFlags.NONE, buf))
                .as("write past the end").isEqualTo(IoStatus.INVALID);
        assertThat(SyncIo.execute(d, BioOp.READ, d.sizeBytes() - lbs, 2L * lbs, BioFlags.NONE,
                MemorySegment.ofArray(new byte[2 * lbs]))).as("read across the end").isEqualTo(IoStatus.INVALID);
        assertThat(SyncIo.execute(d, BioOp.WRITE, 1, lbs, BioFlags.NONE, buf))
                .as("misaligned offset").isEqualTo(IoStatus.INVALID);
        assertThat(SyncIo.execute(d, BioOp.WRITE, 0, lbs + 1, BioFlags.NONE, odd))
                .as("misaligned length").isEqualTo(IoStatus.INVALID);
        assertThat(SyncIo.execute(d, BioOp.DISCARD, 0, 0, BioFlags.NONE, null))
                .as("empty discard").isEqualTo(IoStatus.INVALID);
        expect(dut, read(d, 0, lbs), random(30, lbs), "block 0 after rejected requests");
    }

    /** Discard and write-zeroes both read back as zeros, whole pages and partial ones. */
    public static void discardAndWriteZeroesReadZero(DeviceUnderTest dut) {
        BlockDevice d = dut.device();
        int lbs = lbs(d);
        int len = 64 * 1024;
        SyncIo.write(d, 0, random(40, len));
        SyncIo.write(d, len, random(41, len));
        SyncIo.discard(d, lbs, len - 2L * lbs);
        SyncIo.writeZeroes(d, len + lbs, len - 2L * lbs);
        MemorySegment a = read(d, 0, len);
        MemorySegment b = read(d, len, len);
        assertZero(a.asSlice(lbs, len - 2L * lbs), "discarded range");
        assertZero(b.asSlice(lbs, len - 2L * lbs), "zeroed range");
        expect(dut, a.asSlice(0, lbs), random(40, len).asSlice(0, lbs), "block before discard");
        expect(dut, b.asSlice(len - lbs, lbs), random(41, len).asSlice(len - lbs, lbs), "block after zeroes");
    }

    /** Eight writers on disjoint ranges, each writing many blocks, then every block verifies. */
    public static void concurrentDisjointWriters(DeviceUnderTest dut) throws Exception {
        BlockDevice d = dut.device();
        int lbs = lbs(d);
        int writers = 8;
        long region = Math.min(1L << 20, d.sizeBytes() / writers);
        region -= region % lbs;
        int ioSize = Math.max(lbs, 4096);
        long perRegion = region / ioSize;
        try (ExecutorService pool = Executors.newFixedThreadPool(writers)) {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                long base = w * region;
                int writer = w;
                done.add(pool.submit((Callable<Void>) () -> {
                    for (long i = 0; i < perRegion; i++) {
                        SyncIo.write(d, base + i * ioSize, random(writer * 100_000L + i, ioSize));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        for (int w = 0; w < writers; w++) {
            for (long i = 0; i < perRegion; i++) {
                long off = w * region + i * ioSize;
                expect(dut, read(d, off, ioSize), random(w * 100_000L + i, ioSize), "writer " + w + " block " + i);
            }
        }
    }

    /** A write that completed before a completed flush survives a power cut. */
    public static void flushedWriteSurvivesPowerCut(DeviceUnderTest dut) {
        BlockDevice d = dut.device();
        int len = 16 * 1024;
        SyncIo.write(d, 0, random(50, len));
        SyncIo.flush(d);
        dut.powerCut().ifPresent(Runnable::run);
        expect(dut, read(d, 0, len), random(50, len), "flushed write after power cut");
    }

    /** A FUA write survives a power cut without any flush. */
    public static void fuaWriteSurvivesPowerCut(DeviceUnderTest dut) {
        BlockDevice d = dut.device();
        int len = 16 * 1024;
        SyncIo.write(d, 8L * len, random(60, len), BioFlags.FUA);
        dut.powerCut().ifPresent(Runnable::run);
        expect(dut, read(d, 8L * len, len), random(60, len), "FUA write after power cut");
    }

    /**
     * A PREFLUSH write (a journal's commit: PREFLUSH|FUA) makes every write that completed before
     * it durable: after a power cut both that earlier write and the commit are there.
     */
    public static void preflushWriteKeepsWhatCameBefore(DeviceUnderTest dut) {
        BlockDevice d = dut.device();
        int len = 16 * 1024;
        SyncIo.write(d, 16L * len, random(90, len));
        SyncIo.write(d, 18L * len, random(91, len), BioFlags.PREFLUSH.withFua(true));
        dut.powerCut().ifPresent(Runnable::run);
        expect(dut, read(d, 16L * len, len), random(90, len), "write before a PREFLUSH write, after power cut");
        expect(dut, read(d, 18L * len, len), random(91, len), "PREFLUSH|FUA write after power cut");
    }

    /** After a power cut an unflushed overwrite is gone or intact in each block, never torn inside one. */
    public static void unflushedWriteNeverTorn(DeviceUnderTest dut) {
        BlockDevice d = dut.device();
        int lbs = lbs(d);
        int len = 64 * 1024;
        long off = 32L * 1024;
        MemorySegment before = random(70, len);
        MemorySegment after = random(71, len);
        SyncIo.write(d, off, before);
        SyncIo.flush(d);
        SyncIo.write(d, off, after);
        dut.powerCut().ifPresent(Runnable::run);
        MemorySegment now = read(d, off, len);
        if (!dut.retainsData()) {
            assertZero(now, "null device");
            return;
        }
        for (int b = 0; b < len / lbs; b++) {
            MemorySegment blk = now.asSlice((long) b * lbs, lbs);
            boolean old = blk.mismatch(before.asSlice((long) b * lbs, lbs)) == -1;
            boolean fresh = blk.mismatch(after.asSlice((long) b * lbs, lbs)) == -1;
            assertThat(old || fresh).as("block %d is torn", b).isTrue();
        }
    }

    /** When everything below fails, reads, writes and flushes report errors instead of succeeding. */
    public static void errorsReachTheCaller(DeviceUnderTest dut) {
        BlockDevice d = dut.device();
        int len = Math.max(lbs(d), 4096) * 4;
        SyncIo.write(d, 0, random(80, len));
        dut.breakAll().orElseThrow().run();
        MemorySegment buf = MemorySegment.ofArray(new byte[len]);
        assertThat(SyncIo.execute(d, BioOp.READ, 0, len, BioFlags.NONE, buf)).as("read").isNotEqualTo(IoStatus.OK);
        assertThat(SyncIo.execute(d, BioOp.WRITE, 0, len, BioFlags.NONE, random(81, len)))
                .as("write").isNotEqualTo(IoStatus.OK);
    }
}
