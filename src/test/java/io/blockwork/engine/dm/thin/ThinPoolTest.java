package io.blockwork.engine.dm.thin;

import static io.blockwork.engine.dm.thin.ThinRig.BLOCK;
import static io.blockwork.engine.dm.thin.ThinRig.pattern;
import static io.blockwork.engine.dm.thin.ThinRig.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The thin-pool and thin targets as dmsetup users drive them: tables, messages, status lines,
 * provisioning, snapshots of volumes and of snapshots, discards, deletion and restarts.
 */
@Tag("unit")
class ThinPoolTest {

    private static final long META = 4L << 20;
    private static final long DATA = 64L << 20;
    private static final long DATA_BLOCKS = DATA / BLOCK;

    @Test
    void aNewPoolReportsItsStatusAsTheKernelPrintsIt() {
        try (ThinRig rig = new ThinRig(META, DATA)) {
            String status = rig.pool.statusText();
            assertThat(status).matches("0 131072 thin-pool 0 \\d+/1024 0/" + DATA_BLOCKS
                    + " - rw discard_passdown queue_if_no_space - 256\n");
            assertThat(rig.pool.tableText()).isEqualTo("0 131072 thin-pool meta data 128 0 0\n");
        }
    }

    @Test
    void aThinVolumeAllocatesOnlyWhatIsWrittenAndReadsZerosElsewhere() {
        try (ThinRig rig = new ThinRig(META, DATA)) {
            MappedDevice thin = rig.newThin("thin", 0, 1L << 40); // 1 TiB virtual on a 64 MiB pool
            assertThat(thin.sizeBytes()).isEqualTo(1L << 40);
            SyncIo.write(thin, 0, pattern(1, 4096));
            SyncIo.write(thin, (1L << 40) - 4096, pattern(2, 4096));
            SyncIo.write(thin, 5 * BLOCK + 512, pattern(3, 1024));
            assertThat(read(thin, 0, 4096).mismatch(pattern(1, 4096))).isEqualTo(-1);
            assertThat(read(thin, (1L << 40) - 4096, 4096).mismatch(pattern(2, 4096))).isEqualTo(-1);
            MemorySegment block5 = read(thin, 5 * BLOCK, (int) BLOCK);
            assertThat(block5.asSlice(512, 1024).mismatch(pattern(3, 1024))).isEqualTo(-1);
            assertThat(block5.asSlice(0, 512).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly(0);
            assertThat(read(thin, 77 * BLOCK, 4096).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly(0);
            assertThat(rig.metadata().usage().usedDataBlocks()).isEqualTo(3);
            long lastBlock = (1L << 40) / BLOCK - 1;
            assertThat(thin.statusText()).isEqualTo("0 " + ((1L << 40) >> 9) + " thin " + 3 * 128 + " "
                    + ((lastBlock + 1) * 128 - 1) + "\n");
            assertThat(thin.tableText()).isEqualTo("0 " + ((1L << 40) >> 9) + " thin pool 0\n");
            assertThat(MetadataCheck.run(rig.metadata())).isEmpty();
        }
    }

    @Test
    void snapshotsShareBlocksUntilAWriteBreaksSharing() {
        try (ThinRig rig = new ThinRig(META, DATA)) {
            MappedDevice origin = rig.newThin("origin", 0, 16 * BLOCK);
            for (int b = 0; b < 8; b++) {
                SyncIo.write(origin, b * BLOCK, pattern(10 + b, (int) BLOCK));
            }
            rig.snapshot(origin, 0, 1);
            MappedDevice snap = rig.thin("snap", 1, 16 * BLOCK);
            assertThat(rig.metadata().usage().usedDataBlocks()).as("a snapshot copies nothing").isEqualTo(8);

            SyncIo.write(origin, 2 * BLOCK + 4096, pattern(99, 4096)); // breaks sharing of block 2 only
            assertThat(rig.metadata().usage().usedDataBlocks()).isEqualTo(9);
            MemorySegment expected = pattern(12, (int) BLOCK);
            assertThat(read(snap, 2 * BLOCK, (int) BLOCK).mismatch(expected)).as("the snapshot keeps the old data").isEqualTo(-1);
            MemorySegment now = read(origin, 2 * BLOCK, (int) BLOCK);
            assertThat(now.asSlice(4096, 4096).mismatch(pattern(99, 4096))).isEqualTo(-1);
            assertThat(now.asSlice(0, 4096).mismatch(expected.asSlice(0, 4096))).as("the copy kept the rest").isEqualTo(-1);

            // a snapshot of the snapshot, then writes to all three
            rig.snapshot(snap, 1, 2);
            MappedDevice snap2 = rig.thin("snap2", 2, 16 * BLOCK);
            SyncIo.write(snap, 3 * BLOCK, pattern(200, (int) BLOCK));
            SyncIo.write(snap2, 3 * BLOCK, pattern(201, (int) BLOCK));
            assertThat(read(origin, 3 * BLOCK, (int) BLOCK).mismatch(pattern(13, (int) BLOCK))).isEqualTo(-1);
            assertThat(read(snap, 3 * BLOCK, (int) BLOCK).mismatch(pattern(200, (int) BLOCK))).isEqualTo(-1);
            assertThat(read(snap2, 3 * BLOCK, (int) BLOCK).mismatch(pattern(201, (int) BLOCK))).isEqualTo(-1);
            assertThat(read(snap2, 2 * BLOCK, (int) BLOCK).mismatch(expected)).isEqualTo(-1);
            assertThat(rig.metadata().usage().usedDataBlocks()).isEqualTo(11);
            assertThat(MetadataCheck.run(rig.metadata())).isEmpty();

            // a write to an unshared block of the origin is in place: no new block
            SyncIo.write(origin, 2 * BLOCK, pattern(98, 4096));
            assertThat(rig.metadata().usage().usedDataBlocks()).isEqualTo(11);
        }
    }

    @Test
    void deletingAVolumeReturnsItsUnsharedBlocksAndDiscardsUnmap() {
        try (ThinRig rig = new ThinRig(META, DATA)) {
            MappedDevice origin = rig.newThin("origin", 0, 16 * BLOCK);
            for (int b = 0; b < 8; b++) {
                SyncIo.write(origin, b * BLOCK, pattern(b, (int) BLOCK));
            }
            rig.snapshot(origin, 0, 1);
            MappedDevice snap = rig.thin("snap", 1, 16 * BLOCK);
            for (int b = 0; b < 4; b++) {
                SyncIo.write(snap, b * BLOCK, pattern(50 + b, 4096));
            }
            assertThat(rig.metadata().usage().usedDataBlocks()).isEqualTo(12);

            SyncIo.discard(origin, 6 * BLOCK, 2 * BLOCK); // shared with the snapshot: unmapped here only
            assertThat(rig.metadata().usage().usedDataBlocks()).isEqualTo(12);
            assertThat(read(origin, 6 * BLOCK, 4096).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly(0);
            assertThat(read(snap, 6 * BLOCK, 4096).mismatch(pattern(6, 4096))).isEqualTo(-1);
            SyncIo.discard(snap, 0, BLOCK); // the snapshot's own copy: freed
            assertThat(rig.metadata().usage().usedDataBlocks()).isEqualTo(11);

            assertThatThrownBy(() -> rig.message("delete 1")).isInstanceOf(DmException.class).hasMessageContaining("is open in 'snap'");
            rig.remove(snap);
            rig.message("delete 1");
            assertThat(rig.metadata().usage().usedDataBlocks()).as("6 origin blocks remain").isEqualTo(6);
            assertThat(MetadataCheck.run(rig.metadata())).isEmpty();
        }
    }

    @Test
    void messagesAreCheckedAndRefusedWithTheKernelsReasons() {
        try (ThinRig rig = new ThinRig(META, DATA)) {
            MappedDevice thin = rig.newThin("thin", 7, 4 * BLOCK);
            assertThatThrownBy(() -> rig.message("create_thin 7")).hasMessageContaining("device id 7 already exists");
            assertThatThrownBy(() -> rig.message("create_thin 16777216")).hasMessageContaining("invalid device id");
            assertThatThrownBy(() -> rig.message("create_thin")).hasMessageContaining("1 arguments instead of 2");
            assertThatThrownBy(() -> rig.message("create_snap 8 7")).hasMessageContaining("suspend it before");
            assertThatThrownBy(() -> rig.message("create_snap 8 9")).hasMessageContaining("origin device id 9 does not exist");
            assertThatThrownBy(() -> rig.message("frobnicate")).hasMessageContaining("Unrecognised thin pool target message");
            assertThatThrownBy(() -> rig.message("set_transaction_id 1 2")).hasMessageContaining("the pool's is 0, not 1");
            rig.message("set_transaction_id 0 42");
            assertThat(rig.pool.statusText()).startsWith("0 131072 thin-pool 42 ");
            rig.message("reserve_metadata_snap");
            long held = rig.metadata().heldRoot();
            assertThat(held).isPositive();
            assertThat(rig.pool.statusText()).contains("/" + DATA_BLOCKS + " " + held + " rw ");
            assertThatThrownBy(() -> rig.message("reserve_metadata_snap")).hasMessageContaining("already held");
            SyncIo.write(thin, 0, pattern(1, 4096)); // metadata changes under a held root copy its nodes
            rig.message("release_metadata_snap");
            assertThat(rig.pool.statusText()).contains("/" + DATA_BLOCKS + " - rw ");
            assertThat(MetadataCheck.run(rig.metadata())).isEmpty();
            assertThatThrownBy(() -> rig.thin("ghost", 3, BLOCK)).isInstanceOf(TableException.class)
                    .hasMessageContaining("line 1: thin: Couldn't open thin internal device: device id 3 does not exist");
        }
    }

    @Test
    void badPoolTablesAreRefusedNamingTheLine() {
        try (ThinRig rig = new ThinRig(META, DATA)) {
            var devs = rig.devices();
            assertThatThrownBy(() -> devs.create("p2", "0 1024 thin-pool meta data 100 0\n"))
                    .hasMessageContaining("line 1: thin-pool: Invalid block size");
            assertThatThrownBy(() -> devs.create("p2", "0 1024 thin-pool meta data 192 0\n"))
                    .hasMessageContaining("not a multiple of 128");
            assertThatThrownBy(() -> devs.create("p2", "0 1024 thin-pool data data 128 0\n"))
                    .hasMessageContaining("Error setting metadata or data device");
            assertThatThrownBy(() -> devs.create("p2", "0 1024 thin-pool meta data 128 0 1 turbo\n"))
                    .hasMessageContaining("Unrecognised pool feature requested: 'turbo'");
            assertThatThrownBy(() -> devs.create("p2", "0 1024 thin-pool meta data 128 0\n"))
                    .hasMessageContaining("metadata device already in use by a pool ('pool')");
            assertThatThrownBy(() -> devs.create("t", "0 1024 thin meta 0\n"))
                    .hasMessageContaining("Couldn't find pool object");
        }
    }

    @Test
    void everythingSurvivesARestart() {
        try (ThinRig rig = new ThinRig(META, DATA)) {
            MappedDevice a = rig.newThin("a", 0, 16 * BLOCK);
            SyncIo.write(a, 0, pattern(1, (int) (4 * BLOCK)));
            rig.snapshot(a, 0, 1);
            SyncIo.write(a, BLOCK, pattern(2, 4096));
            rig.message("set_transaction_id 0 5");
            rig.restart();
            MappedDevice a2 = rig.thin("a", 0, 16 * BLOCK);
            MappedDevice s2 = rig.thin("s", 1, 16 * BLOCK);
            assertThat(read(s2, 0, (int) (4 * BLOCK)).mismatch(pattern(1, (int) (4 * BLOCK)))).isEqualTo(-1);
            assertThat(read(a2, BLOCK, 4096).mismatch(pattern(2, 4096))).isEqualTo(-1);
            assertThat(rig.metadata().transactionId()).isEqualTo(5);
            assertThat(rig.metadata().usage().usedDataBlocks()).isEqualTo(5);
            assertThat(MetadataCheck.run(rig.metadata())).isEmpty();
        }
    }
}
