package io.blockwork.engine.dm.thin;

import static io.blockwork.engine.dm.thin.ThinRig.BLOCK;
import static io.blockwork.engine.dm.thin.ThinRig.pattern;
import static io.blockwork.engine.dm.thin.ThinRig.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.targets.Targets;
import io.blockwork.engine.dm.targets.ThinPoolTarget;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Out of space as dm-thin behaves: {@code error_if_no_space} fails at once, the default queues for
 * the no-space timeout; the low-water mark raises one event; data and metadata devices grow online
 * (a larger table, resumed) and queued writes then complete; metadata grows with the data written.
 */
@Tag("unit")
class ThinSpaceTest {

    private static final long SECTORS_PER_BLOCK = BLOCK >> 9;

    /** A pool whose metadata and data are linear devices over larger disks, so both can grow. */
    private static final class Growable implements AutoCloseable {
        final DmTestDevices devs;
        final MappedDevice meta;
        final MappedDevice data;
        final MappedDevice pool;
        final String features;
        final long lowWater;

        Growable(long metaBlocks, long dataBlocks, long lowWater, String features, Duration noSpaceTimeout, int capacity) {
            devs = new DmTestDevices().config(Targets.config().withThin(
                    ThinConfig.defaults().withNoSpaceTimeout(noSpaceTimeout).withNodeCapacity(capacity)));
            devs.add(Disk.memory("mdisk", 8L << 20, DiskConfig.writeback()));
            devs.add(Disk.memory("ddisk", 64 * BLOCK, DiskConfig.writeback()));
            this.features = features;
            this.lowWater = lowWater;
            meta = devs.create("meta", "0 " + metaBlocks * 8 + " linear mdisk 0\n");
            data = devs.create("data", "0 " + dataBlocks * SECTORS_PER_BLOCK + " linear ddisk 0\n");
            pool = devs.create("pool", poolTable(dataBlocks));
            pool.message(0, "create_thin 0");
        }

        String poolTable(long dataBlocks) {
            return "0 " + dataBlocks * SECTORS_PER_BLOCK + " thin-pool meta data 128 " + lowWater
                    + (features.isEmpty() ? " 0" : " 1 " + features) + "\n";
        }

        MappedDevice thin() {
            return devs.create("thin", "0 " + (1L << 30 >> 9) + " thin pool 0\n");
        }

        Pool poolObject() {
            return ((ThinPoolTarget) pool.liveTable().entries().getFirst().target()).pool();
        }

        void growData(long dataBlocks) {
            data.load("0 " + dataBlocks * SECTORS_PER_BLOCK + " linear ddisk 0\n", devs);
            data.resume();
            pool.load(poolTable(dataBlocks), devs);
            pool.resume();
        }

        void growMetadata(long metaBlocks) {
            meta.load("0 " + metaBlocks * 8 + " linear mdisk 0\n", devs);
            meta.resume();
            pool.suspend();
            pool.resume();
        }

        @Override
        public void close() {
            MappedDevice t = (MappedDevice) devs.find("thin");
            if (t != null) {
                t.remove();
            }
            pool.remove();
        }
    }

    private static IoStatus write(MappedDevice d, long block) {
        return SyncIo.execute(d, BioOp.WRITE, block * BLOCK, 4096, BioFlags.NONE, pattern(block, 4096));
    }

    @Test
    void errorIfNoSpaceFailsWritesThatNeedABlockAndKeepsTheRestWorking() {
        try (Growable g = new Growable(256, 8, 0, "error_if_no_space", Duration.ofSeconds(60), 254)) {
            MappedDevice thin = g.thin();
            for (long b = 0; b < 8; b++) {
                assertThat(write(thin, b)).isEqualTo(IoStatus.OK);
            }
            long events = g.pool.info().eventNumber();
            assertThat(write(thin, 8)).isEqualTo(IoStatus.NO_SPACE);
            assertThat(g.pool.statusText()).contains(" 8/8 - out_of_data_space discard_passdown error_if_no_space - ");
            assertThat(g.pool.info().eventNumber()).as("the mode change raised an event").isGreaterThan(events);
            assertThat(write(thin, 3)).as("a mapped block is written in place").isEqualTo(IoStatus.OK);
            assertThat(read(thin, 3 * BLOCK, 4096).mismatch(pattern(3, 4096))).isEqualTo(-1);

            g.growData(16);
            assertThat(g.pool.statusText()).contains(" 8/16 - rw ");
            assertThat(write(thin, 8)).isEqualTo(IoStatus.OK);
        }
    }

    @Test
    void aFullPoolQueuesWritesUntilItGrowsOnline() throws Exception {
        try (Growable g = new Growable(256, 4, 0, "", Duration.ofSeconds(60), 254)) {
            MappedDevice thin = g.thin();
            for (long b = 0; b < 4; b++) {
                assertThat(write(thin, b)).isEqualTo(IoStatus.OK);
            }
            CompletableFuture<IoStatus> queued = new CompletableFuture<>();
            thin.submit(Bio.write(10 * BLOCK, pattern(10, 4096), BioFlags.NONE, b -> queued.complete(b.status())));
            await().atMost(Duration.ofSeconds(60)).until(() -> g.poolObject().queuedForSpace() == 1);
            assertThat(queued).isNotDone();
            assertThat(g.pool.statusText()).contains(" out_of_data_space discard_passdown queue_if_no_space ");

            g.growData(8);
            assertThat(queued.get()).isEqualTo(IoStatus.OK);
            assertThat(read(thin, 10 * BLOCK, 4096).mismatch(pattern(10, 4096))).isEqualTo(-1);
            assertThat(g.pool.statusText()).contains(" 5/8 - rw ");
        }
    }

    @Test
    void queuedWritesFailAfterTheNoSpaceTimeout() throws Exception {
        try (Growable g = new Growable(256, 2, 0, "", Duration.ofMillis(200), 254)) {
            MappedDevice thin = g.thin();
            write(thin, 0);
            write(thin, 1);
            CompletableFuture<IoStatus> queued = new CompletableFuture<>();
            thin.submit(Bio.write(5 * BLOCK, pattern(5, 4096), BioFlags.NONE, b -> queued.complete(b.status())));
            assertThat(queued.get()).isEqualTo(IoStatus.NO_SPACE);
            assertThat(g.pool.statusText()).as("the pool errors from now on, as dm-thin does")
                    .contains(" out_of_data_space discard_passdown error_if_no_space ");
            assertThat(write(thin, 6)).isEqualTo(IoStatus.NO_SPACE);
        }
    }

    @Test
    void discardedBlocksBecomeFreeAtTheNextCommitAndQueuedWritesTakeThem() throws Exception {
        try (Growable g = new Growable(256, 4, 0, "", Duration.ofSeconds(60), 254)) {
            MappedDevice thin = g.thin();
            for (long b = 0; b < 4; b++) {
                write(thin, b);
            }
            SyncIo.discard(thin, 0, BLOCK);
            assertThat(write(thin, 9)).as("the freed block is taken once a commit made its unmapping durable")
                    .isEqualTo(IoStatus.OK);
            assertThat(g.pool.statusText()).contains(" 4/4 - rw ");
        }
    }

    @Test
    void theLowWaterMarkRaisesOneEventUntilTheNextResume() {
        try (Growable g = new Growable(256, 8, 3, "", Duration.ofSeconds(60), 254)) {
            MappedDevice thin = g.thin();
            long before = g.pool.info().eventNumber();
            for (long b = 0; b < 4; b++) {
                write(thin, b);
            }
            assertThat(g.pool.info().eventNumber()).as("4 free blocks: above the mark").isEqualTo(before);
            write(thin, 4);
            assertThat(g.pool.info().eventNumber()).as("3 free: at the mark").isEqualTo(before + 1);
            write(thin, 5);
            assertThat(g.pool.info().eventNumber()).as("only one event").isEqualTo(before + 1);
        }
    }

    @Test
    void theMetadataDeviceGrowsOnlineWhenItIsFull() {
        try (Growable g = new Growable(48, 64, 0, "", Duration.ofSeconds(60), 4)) {
            MappedDevice thin = g.thin();
            long b = 0;
            IoStatus s;
            while ((s = write(thin, b)) == IoStatus.OK) {
                b++;
            }
            assertThat(s).isEqualTo(IoStatus.IO_ERROR);
            assertThat(b).as("some blocks were mapped before the metadata ran out").isPositive();
            assertThat(g.pool.statusText()).contains("/48 " + b + "/64 - ro ");
            assertThat(MetadataCheck.run(g.poolObject().metadata())).isEmpty();

            g.growMetadata(512);
            assertThat(g.pool.statusText()).contains("/512 " + b + "/64 - rw ");
            assertThat(write(thin, b)).isEqualTo(IoStatus.OK);
            assertThat(MetadataCheck.run(g.poolObject().metadata())).isEmpty();
        }
    }

    /**
     * Many provisioning writes in flight at once (nbdcopy keeps hundreds) each reserve metadata
     * for their insert; together the reservations may exceed the free metadata although little of
     * it will be used. That is not "out of metadata space": the writes that do not fit wait for
     * the others' inserts to give their reservations back, and the pool stays read-write.
     */
    @Test
    void writesInFlightThatReserveMoreMetadataThanIsFreeWaitInsteadOfTurningThePoolReadOnly() throws Exception {
        try (Growable g = new Growable(48, 64, 0, "", Duration.ofSeconds(60), 254)) {
            MappedDevice thin = g.thin();
            g.data.suspend(); // the data writes queue here, so every allocation stays reserved
            int writes = 48;
            CompletableFuture<?>[] done = new CompletableFuture<?>[writes];
            for (int b = 0; b < writes; b++) {
                CompletableFuture<IoStatus> f = new CompletableFuture<>();
                done[b] = f;
                thin.submit(Bio.of(BioOp.WRITE, b * BLOCK, 4096, BioFlags.NONE, pattern(b, 4096),
                        bio -> f.complete(bio.status())));
            }
            g.data.resume();
            CompletableFuture.allOf(done).get();
            for (int b = 0; b < writes; b++) {
                assertThat(done[b].get()).as("write to block %d", b).isEqualTo(IoStatus.OK);
                assertThat(read(thin, b * BLOCK, 4096).mismatch(pattern(b, 4096))).isEqualTo(-1);
            }
            assertThat(g.pool.statusText()).contains(" " + writes + "/64 - rw ");
            assertThat(MetadataCheck.run(g.poolObject().metadata())).isEmpty();
        }
    }

    @Test
    void metadataIsProportionalToTheDataWrittenNotToTheVirtualSize() {
        DmTestDevices devs = new DmTestDevices();
        devs.add(Disk.memory("meta", 64L << 20, DiskConfig.writeback()));
        devs.add(Disk.nullDisk("data", 2L << 30, DiskConfig.DEFAULT));
        MappedDevice pool = devs.create("pool", "0 " + (2L << 30 >> 9) + " thin-pool meta data 128 0\n");
        pool.message(0, "create_thin 0");
        MappedDevice thin = devs.create("thin", "0 " + (1L << 40 >> 9) + " thin pool 0\n"); // 1 TiB
        PoolMetadata pmd = ((ThinPoolTarget) pool.liveTable().entries().getFirst().target()).pool().metadata();
        try {
            long base = pmd.usage().usedMetadataBlocks();
            var buf = pattern(1, (int) BLOCK);
            long[] usedAt = new long[2];
            long[] marks = {64L << 20, 1L << 30};
            long written = 0;
            for (int m = 0; m < marks.length; m++) {
                // scattered over the whole terabyte, one whole block at a time
                for (; written < marks[m]; written += BLOCK) {
                    long vblock = (written / BLOCK * 104_729L) % ((1L << 40) / BLOCK);
                    SyncIo.write(thin, vblock * BLOCK, buf);
                }
                SyncIo.flush(thin);
                usedAt[m] = pmd.usage().usedMetadataBlocks() - base;
            }
            // About 16 bytes per mapping and per reference count in half-full nodes: under 1% of the data.
            assertThat(usedAt[1] * 4096).as("metadata for 1 GiB written").isLessThan((1L << 30) / 100);
            double ratio = (double) usedAt[1] / usedAt[0];
            assertThat(ratio).as("16x the data, about 16x the metadata").isBetween(12.0, 20.0);
        } finally {
            thin.remove();
            pool.remove();
        }
    }
}
