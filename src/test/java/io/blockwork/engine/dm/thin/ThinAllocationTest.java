package io.blockwork.engine.dm.thin;

import static io.blockwork.engine.dm.thin.ThinRig.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.dm.MappedDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A thin volume's BLOCK_STATUS answer comes from its mapping tree: unmapped blocks are holes (they
 * read as zeros), mapped ones data, exactly, at block granularity; a 1 TiB volume with nothing
 * written is one hole, answered without a walk over its 16 million blocks.
 */
@Tag("unit")
class ThinAllocationTest {

    private static final long TIB = 1L << 40;

    @Test
    void anEmptyTerabyteVolumeIsOneHoleAndWritesAndDiscardsShowBlockByBlock() {
        try (ThinRig rig = new ThinRig(4L << 20, 64L << 20)) {
            MappedDevice thin = rig.newThin("big", 1, TIB);
            assertThat(map(thin, 0, TIB)).containsExactly(new Extents.Extent(TIB, Allocation.HOLE));

            SyncIo.write(thin, 3 * BLOCK + 512, ThinRig.pattern(1, 512)); // one sector provisions block 3
            long far = TIB - 2 * BLOCK;
            SyncIo.write(thin, far, ThinRig.pattern(2, (int) BLOCK));
            assertThat(map(thin, 0, TIB)).containsExactly(new Extents.Extent(3 * BLOCK, Allocation.HOLE),
                    new Extents.Extent(BLOCK, Allocation.DATA), new Extents.Extent(far - 4 * BLOCK, Allocation.HOLE),
                    new Extents.Extent(BLOCK, Allocation.DATA), new Extents.Extent(BLOCK, Allocation.HOLE));
            // a query inside a block answers for the part asked
            assertThat(map(thin, 3 * BLOCK + 100, 200)).containsExactly(new Extents.Extent(200, Allocation.DATA));

            SyncIo.discard(thin, 3 * BLOCK, BLOCK);
            assertThat(map(thin, 0, 8 * BLOCK)).containsExactly(new Extents.Extent(8 * BLOCK, Allocation.HOLE));
        }
    }

    /**
     * Random blocks mapped and unmapped in a tree of 8-key nodes (many levels, separators left
     * behind by removals): every answer equals the set of mapped blocks, also for queries that
     * start and end anywhere, and a snapshot answers for what it shares.
     */
    @Test
    void answersEqualTheMappedBlocksInADeepTree() {
        ThinConfig config = ThinConfig.defaults().withNodeCapacity(8);
        int blocks = 600;
        try (ThinRig rig = new ThinRig(16L << 20, (blocks + 8) * BLOCK, config, "")) {
            MappedDevice thin = rig.newThin("t", 1, blocks * BLOCK);
            boolean[] mapped = new boolean[blocks];
            Random r = new Random(20261202);
            for (int step = 0; step < 1500; step++) {
                int b = r.nextInt(blocks);
                if (r.nextInt(3) > 0) {
                    SyncIo.write(thin, b * BLOCK, ThinRig.pattern(step, 512));
                    mapped[b] = true;
                } else {
                    SyncIo.discard(thin, b * BLOCK, BLOCK);
                    mapped[b] = false;
                }
                if (step % 20 == 19) {
                    SyncIo.flush(thin); // a commit: small nodes shadowed in one transaction soon fill the metadata
                }
                if (step % 100 == 99) {
                    long from = r.nextLong(blocks * BLOCK);
                    long length = 1 + r.nextLong(blocks * BLOCK - from);
                    assertThat(map(thin, from, length)).as("step %d, [%d, +%d)", step, from, length)
                            .isEqualTo(expected(mapped, from, length));
                }
            }
            assertThat(map(thin, 0, blocks * BLOCK)).isEqualTo(expected(mapped, 0, blocks * BLOCK));

            rig.snapshot(thin, 1, 2);
            MappedDevice snap = rig.thin("s", 2, blocks * BLOCK);
            boolean[] frozen = mapped.clone();
            for (int b = 0; b < blocks; b += 7) {
                SyncIo.discard(thin, b * BLOCK, BLOCK);
                mapped[b] = false;
            }
            assertThat(map(snap, 0, blocks * BLOCK)).isEqualTo(expected(frozen, 0, blocks * BLOCK));
            assertThat(map(thin, 0, blocks * BLOCK)).isEqualTo(expected(mapped, 0, blocks * BLOCK));
        }
    }

    private static List<Extents.Extent> map(MappedDevice d, long from, long length) {
        Extents out = new Extents(Integer.MAX_VALUE);
        d.allocation(from, length, out);
        return out.extents();
    }

    /** The model's answer: each block's bytes within the query, adjacent ones of a kind merged. */
    private static List<Extents.Extent> expected(boolean[] mapped, long from, long length) {
        Extents out = new Extents(Integer.MAX_VALUE);
        for (long pos = from, end = from + length; pos < end; ) {
            long blockEnd = Math.min(end, (pos / BLOCK + 1) * BLOCK);
            out.add(blockEnd - pos, mapped[(int) (pos / BLOCK)] ? Allocation.DATA : Allocation.HOLE);
            pos = blockEnd;
        }
        return new ArrayList<>(out.extents());
    }
}
