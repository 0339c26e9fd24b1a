package io.blockwork.engine.dm.thin;

import static io.blockwork.engine.dm.thin.ThinRig.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.dm.MappedDevice;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import org.junit.jupiter.api.Tag;

/**
 * Acceptance 1: random sequences of writes, discards and write-zeroes, snapshots (of volumes and
 * of snapshots), deletions, flushes, restarts and crashes right after a flush, on several thin
 * volumes of one pool, checked against an in-memory model after every step:
 * <ul>
 *   <li>every volume reads back exactly the model's bytes, and maps the model's block count;
 *   <li>two mappings share a data block exactly when the model says they share one (the model
 *       follows dm-thin's rule: a mapping older than its device's last snapshot is copied on
 *       the first write), so no volume ever sees another's block by accident;
 *   <li>the metadata checks clean ({@link MetadataCheck}): every data block's reference count
 *       equals the mapping entries that name it, node counts equal pointers, nothing leaks;
 *   <li>the pool's used data blocks equal the distinct blocks mapped.
 * </ul>
 * Nodes hold four entries, so a few dozen mappings already make three-level trees that split,
 * merge and are shared and copied by snapshots.
 */
@Tag("unit")
class ThinPoolModelTest {

    private static final int VOLUME_BLOCKS = 8;
    private static final int VOLUME_BYTES = (int) (VOLUME_BLOCKS * BLOCK);
    private static final int MAX_VOLUMES = 5;

    private ThinSystem current;

    @AfterTry
    void closeRig() {
        if (current != null) {
            current.rig.close();
            current = null;
        }
    }

    @Property(tries = 30)
    void aThinPoolBehavesLikeItsModel(@ForAll("scenarios") ActionChain<ThinSystem> chain) {
        chain.withInvariant("matches the model", ThinSystem::check).run();
    }

    @Provide
    Arbitrary<ActionChain<ThinSystem>> scenarios() {
        return ActionChain.<ThinSystem>startWith(() -> current = new ThinSystem())
                .withAction(2, new CreateVolume())
                .withAction(8, new Write())
                .withAction(3, new Zero())
                .withAction(2, new Snapshot())
                .withAction(1, new Delete())
                .withAction(1, Action.just(Transformer.mutate("flush", ThinSystem::flushAll)))
                .withAction(1, Action.just(Transformer.mutate("restart", ThinSystem::restart)))
                .withAction(1, Action.just(Transformer.mutate("flush, then crash", ThinSystem::flushAndCrash)))
                .withMaxTransformations(40);
    }

    /* ---- Actions ---- */

    private static final class CreateVolume implements Action.Independent<ThinSystem> {
        @Override
        public boolean precondition(ThinSystem s) {
            return s.model.size() < MAX_VOLUMES;
        }

        @Override
        public Arbitrary<Transformer<ThinSystem>> transformer() {
            return Arbitraries.just(Transformer.mutate("create a volume", ThinSystem::createVolume));
        }
    }

    private static final class Write implements Action.Dependent<ThinSystem> {
        @Override
        public boolean precondition(ThinSystem s) {
            return !s.model.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<ThinSystem>> transformer(ThinSystem s) {
            return Combinators.combine(Arbitraries.of(s.ids()), range(), Arbitraries.longs())
                    .as((id, r, seed) -> Transformer.mutate("write " + r[1] + " bytes at " + r[0] + " of " + id,
                            sys -> sys.write(id, r[0], (int) r[1], seed)));
        }
    }

    private static final class Zero implements Action.Dependent<ThinSystem> {
        @Override
        public boolean precondition(ThinSystem s) {
            return !s.model.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<ThinSystem>> transformer(ThinSystem s) {
            return Combinators.combine(Arbitraries.of(s.ids()), range(), Arbitraries.of(true, false))
                    .as((id, r, discard) -> Transformer.mutate((discard ? "discard " : "write zeroes ") + r[1]
                            + " bytes at " + r[0] + " of " + id, sys -> sys.zero(id, r[0], (int) r[1], discard)));
        }
    }

    private static final class Snapshot implements Action.Dependent<ThinSystem> {
        @Override
        public boolean precondition(ThinSystem s) {
            return !s.model.isEmpty() && s.model.size() < MAX_VOLUMES;
        }

        @Override
        public Arbitrary<Transformer<ThinSystem>> transformer(ThinSystem s) {
            return Arbitraries.of(s.ids()).map(id -> Transformer.mutate("snapshot " + id, sys -> sys.snapshot(id)));
        }
    }

    private static final class Delete implements Action.Dependent<ThinSystem> {
        @Override
        public boolean precondition(ThinSystem s) {
            return !s.model.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<ThinSystem>> transformer(ThinSystem s) {
            return Arbitraries.of(s.ids()).map(id -> Transformer.mutate("delete " + id, sys -> sys.delete(id)));
        }
    }

    /** {offset, length}: 512-byte aligned, up to two blocks, inside a volume, often crossing a block edge. */
    private static Arbitrary<long[]> range() {
        Arbitrary<Long> sectors = Arbitraries.oneOf(Arbitraries.longs().between(1, 8),
                Arbitraries.just(BLOCK >> 9), Arbitraries.longs().between(1, 2 * (BLOCK >> 9)));
        return Combinators.combine(Arbitraries.longs().between(0, (VOLUME_BYTES >> 9) - 1), sectors)
                .as((start, len) -> {
                    long l = Math.min(len, (VOLUME_BYTES >> 9) - start);
                    return new long[] {start << 9, l << 9};
                });
    }

    /* ---- The system and its model ---- */

    /** One volume as the model sees it: its bytes, and per block a physical token (0 = unmapped) and mapping time. */
    private static final class Volume {
        final byte[] bytes;
        final long[] token;
        final int[] time;
        int snapshotted;

        Volume() {
            this(new byte[VOLUME_BYTES], new long[VOLUME_BLOCKS], new int[VOLUME_BLOCKS], 0);
        }

        Volume(byte[] bytes, long[] token, int[] time, int snapshotted) {
            this.bytes = bytes;
            this.token = token;
            this.time = time;
            this.snapshotted = snapshotted;
        }

        Volume copy() {
            return new Volume(bytes.clone(), token.clone(), time.clone(), snapshotted);
        }
    }

    static final class ThinSystem {
        final ThinRig rig = new ThinRig(4L << 20, 512 * BLOCK, ThinConfig.defaults().withNodeCapacity(4), "");
        final Map<Long, Volume> model = new TreeMap<>();
        final Map<Long, MappedDevice> devices = new HashMap<>();
        private long nextId;
        private long nextToken = 1;
        private int poolTime;

        List<Long> ids() {
            return new ArrayList<>(model.keySet());
        }

        void createVolume() {
            long id = nextId++;
            devices.put(id, rig.newThin("v" + id, id, VOLUME_BYTES));
            model.put(id, new Volume());
        }

        void write(long id, long offset, int len, long seed) {
            MemorySegment data = ThinRig.pattern(seed, len);
            SyncIo.write(devices.get(id), offset, data);
            Volume v = model.get(id);
            MemorySegment.copy(data, 0, MemorySegment.ofArray(v.bytes), offset, len);
            forEachBlock(offset, len, (b, whole) -> touch(v, b));
        }

        void zero(long id, long offset, int len, boolean discard) {
            if (discard) {
                SyncIo.discard(devices.get(id), offset, len);
            } else {
                SyncIo.writeZeroes(devices.get(id), offset, len);
            }
            Volume v = model.get(id);
            Arrays.fill(v.bytes, (int) offset, (int) offset + len, (byte) 0);
            forEachBlock(offset, len, (b, whole) -> {
                if (v.token[b] == 0) {
                    return; // unmapped blocks read zeros already
                }
                if (whole) {
                    v.token[b] = 0;
                } else {
                    touch(v, b);
                }
            });
        }

        /** A write to block {@code b}: a new block if unmapped or possibly shared (dm-thin's time rule). */
        private void touch(Volume v, int b) {
            if (v.token[b] == 0 || v.time[b] < v.snapshotted) {
                v.token[b] = nextToken++;
                v.time[b] = poolTime;
            }
        }

        void snapshot(long origin) {
            long id = nextId++;
            rig.snapshot(devices.get(origin), origin, id);
            devices.put(id, rig.thin("v" + id, id, VOLUME_BYTES));
            poolTime++;
            Volume o = model.get(origin);
            o.snapshotted = poolTime;
            Volume s = o.copy();
            s.snapshotted = poolTime;
            model.put(id, s);
        }

        void delete(long id) {
            rig.remove(devices.remove(id));
            rig.message("delete " + id);
            model.remove(id);
        }

        void flushAll() {
            devices.values().forEach(SyncIo::flush);
        }

        void restart() {
            rig.restart();
            reactivate();
        }

        void flushAndCrash() {
            flushAll();
            rig.crash();
            reactivate();
        }

        private void reactivate() {
            devices.clear();
            for (long id : model.keySet()) {
                devices.put(id, rig.thin("v" + id, id, VOLUME_BYTES));
            }
        }

        void check() {
            PoolMetadata pmd = rig.metadata();
            assertThat(MetadataCheck.run(pmd)).as("metadata check").isEmpty();
            Map<Long, Long> tokenOfBlock = new HashMap<>();
            Map<Long, Long> blockOfToken = new HashMap<>();
            Set<Long> used = new HashSet<>();
            for (Map.Entry<Long, Volume> e : model.entrySet()) {
                long id = e.getKey();
                Volume v = e.getValue();
                byte[] actual = ThinRig.read(devices.get(id), 0, VOLUME_BYTES).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                assertThat(Arrays.mismatch(actual, v.bytes)).as("first differing byte of volume %d", id).isEqualTo(-1);
                Map<Long, Long> mappings = pmd.mappings(id);
                long mapped = Arrays.stream(v.token).filter(t -> t != 0).count();
                assertThat(mappings).as("mappings of volume %d", id).hasSize((int) mapped);
                assertThat(pmd.mappedBlocks(id)).isEqualTo(mapped);
                for (int b = 0; b < VOLUME_BLOCKS; b++) {
                    Long block = mappings.get((long) b);
                    if (v.token[b] == 0) {
                        assertThat(block).as("volume %d block %d is unmapped", id, b).isNull();
                        continue;
                    }
                    assertThat(block).as("volume %d block %d is mapped", id, b).isNotNull();
                    used.add(block);
                    Long t = tokenOfBlock.putIfAbsent(block, v.token[b]);
                    Long p = blockOfToken.putIfAbsent(v.token[b], block);
                    assertThat(t == null || t == v.token[b]).as("data block %d shared by unrelated mappings", block).isTrue();
                    assertThat(p == null || p.equals(block)).as("volume %d block %d should share data block %d", id, b, p).isTrue();
                }
            }
            assertThat(pmd.usage().usedDataBlocks()).as("used data blocks").isEqualTo(used.size());
        }

        private interface BlockVisitor {
            void block(int b, boolean whole);
        }

        private static void forEachBlock(long offset, long len, BlockVisitor v) {
            for (long b = offset / BLOCK; b * BLOCK < offset + len; b++) {
                long from = Math.max(offset, b * BLOCK);
                long to = Math.min(offset + len, (b + 1) * BLOCK);
                v.block((int) b, from == b * BLOCK && to == (b + 1) * BLOCK);
            }
        }
    }
}
