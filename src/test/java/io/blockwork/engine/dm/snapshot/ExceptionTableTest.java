package io.blockwork.engine.dm.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The complete exception table against a plain map of old chunk to COW chunk: copy-outs in
 * sequential streams (ascending and descending, as a sequential writer and a merge's reverse walk
 * make them) and scattered ones, with COW chunks handed out in allocation order as a store does,
 * and removals, both of the last exception added (what a merge does, which must always succeed) and
 * of arbitrary chunks (true only for an end of a run; false for a chunk absent or inside one).
 * Few buckets and a chunk space several times their reach, so buckets hold runs of several
 * 256-chunk cells.
 */
@Tag("unit")
class ExceptionTableTest {

    private static final int BUCKETS = ExceptionTable.MIN_BUCKETS;
    private static final long SPACE = 3L * BUCKETS * ExceptionTable.MAX_RUN;

    /** One step of a scenario. */
    sealed interface Step {
        /** {@code length} chunks from {@code start}, up or down, each the next COW chunk; chunks already copied are skipped. */
        record Stream(long start, int length, boolean descending) implements Step {}

        /** One chunk, after {@code skipped} COW chunks went to other copies. */
        record Scattered(long chunk, int skipped) implements Step {}

        /** Removes the exception added last that is still there, as a merge does. */
        record RemoveLatest() implements Step {}

        /** Removes any chunk: true for an end of a run, false if absent or inside one. */
        record Remove(long chunk) implements Step {}
    }

    @Property(tries = 300)
    void behavesLikeAMapOfOldToCowChunks(@ForAll("scenarios") List<Step> steps) {
        ExceptionTable table = new ExceptionTable(BUCKETS);
        Map<Long, Long> model = new HashMap<>();
        Deque<Long> added = new ArrayDeque<>();
        long[] nextCow = {1};
        for (Step step : steps) {
            switch (step) {
                case Step.Stream s -> {
                    for (int k = 0; k < s.length(); k++) {
                        long chunk = s.descending() ? s.start() - k : s.start() + k;
                        if (chunk >= 0 && chunk < SPACE) {
                            insert(table, model, added, chunk, nextCow[0]++);
                        }
                    }
                }
                case Step.Scattered s -> {
                    nextCow[0] += s.skipped();
                    insert(table, model, added, s.chunk(), nextCow[0]++);
                }
                case Step.RemoveLatest r -> {
                    while (!added.isEmpty() && !model.containsKey(added.peek())) {
                        added.pop(); // already removed by a Remove step
                    }
                    if (!added.isEmpty()) {
                        long chunk = added.pop();
                        assertThat(table.remove(chunk)).as("remove the latest, %d", chunk).isTrue();
                        model.remove(chunk);
                    }
                }
                case Step.Remove r -> {
                    long chunk = r.chunk();
                    Long cow = model.get(chunk);
                    boolean removed = table.remove(chunk);
                    if (cow == null) {
                        assertThat(removed).as("remove absent %d", chunk).isFalse();
                    } else if (removed) {
                        model.remove(chunk);
                    } else {
                        // Only a chunk inside a run stays: its neighbours are copied next to it.
                        assertThat(table.lookup(chunk - 1)).as("left of %d", chunk).isEqualTo(cow - 1);
                        assertThat(table.lookup(chunk + 1)).as("right of %d", chunk).isEqualTo(cow + 1);
                    }
                    assertNeighbourhood(table, model, chunk);
                }
            }
        }
        for (long chunk = 0; chunk < SPACE; chunk++) {
            assertThat(table.lookup(chunk)).as("chunk %d", chunk).isEqualTo(model.getOrDefault(chunk, -1L));
        }
        assertThat(totalRuns(table)).isBetween(model.isEmpty() ? 0 : 1, model.size());
        // A merge removing everything in reverse leaves no runs behind.
        while (!added.isEmpty()) {
            long chunk = added.pop();
            if (model.remove(chunk) != null) {
                assertThat(table.remove(chunk)).as("unwinding, %d", chunk).isTrue();
                assertNeighbourhood(table, model, chunk);
            }
        }
        assertThat(totalRuns(table)).isZero();
    }

    @Provide
    Arbitrary<List<Step>> scenarios() {
        Arbitrary<Long> chunks = Arbitraries.longs().between(0, SPACE - 1);
        Arbitrary<Step> stream = Combinators.combine(chunks, Arbitraries.integers().between(1, 600),
                Arbitraries.of(false, true)).as(Step.Stream::new);
        Arbitrary<Step> scattered = Combinators.combine(chunks, Arbitraries.integers().between(0, 2))
                .as(Step.Scattered::new);
        Arbitrary<Step> removeLatest = Arbitraries.just(new Step.RemoveLatest());
        Arbitrary<Step> remove = chunks.map(Step.Remove::new);
        return Arbitraries.frequencyOf(
                        Tuple.of(2, stream),
                        Tuple.of(10, scattered),
                        Tuple.of(3, removeLatest),
                        Tuple.of(3, remove))
                .list().ofMaxSize(200);
    }

    @Test
    void aSequentialCopyOutCostsOneRunPer256Chunks() {
        ExceptionTable up = new ExceptionTable(ExceptionTable.bucketsFor(1L << 22));
        ExceptionTable down = new ExceptionTable(ExceptionTable.bucketsFor(1L << 22));
        int chunks = 100_000;
        for (int k = 0; k < chunks; k++) {
            up.insert(k, 7 + k);
            down.insert(chunks - 1 - k, 7 + k + 1_000_000L);
        }
        int cells = (chunks + ExceptionTable.MAX_RUN - 1) / ExceptionTable.MAX_RUN;
        assertThat(totalRuns(up)).isEqualTo(cells);
        // Descending, each COW chunk is the next, so no run continues: one run per chunk, as in the kernel.
        assertThat(totalRuns(down)).isEqualTo(chunks);
        assertThat(up.lookup(chunks - 1)).isEqualTo(7L + chunks - 1);
        assertThat(up.lookup(chunks)).isEqualTo(-1);
    }

    @Test
    void aRunTurnedAroundGrowsDownwardToo() {
        ExceptionTable table = new ExceptionTable(64);
        // COW chunks handed out downwards (a reverse copy-out that allocated ahead): one run.
        for (int k = 255; k >= 0; k--) {
            table.insert(k, 1_000 + k);
        }
        assertThat(table.runsIn(table.bucket(0))).isEqualTo(1);
        assertThat(table.lookup(0)).isEqualTo(1_000);
        assertThat(table.lookup(255)).isEqualTo(1_255);
        assertThat(table.remove(128)).as("inside the run").isFalse();
        assertThat(table.remove(0)).isTrue();
        assertThat(table.remove(255)).isTrue();
        assertThat(table.lookup(0)).isEqualTo(-1);
        assertThat(table.lookup(1)).isEqualTo(1_001);
        assertThat(table.lookup(254)).isEqualTo(1_254);
        assertThat(table.lookup(255)).isEqualTo(-1);
    }

    @Property(tries = 20)
    void scatteredChunksOfOneCellStayFindable(@ForAll @IntRange(min = 1, max = 256) int written) {
        // The benchmark's pattern: random 4K writes, so single-chunk runs filling one bucket.
        ExceptionTable table = new ExceptionTable(1 << 18);
        long cell = 12_345L * ExceptionTable.MAX_RUN;
        List<Long> order = new ArrayList<>();
        for (int k = 0; k < ExceptionTable.MAX_RUN; k++) {
            order.add(cell + k);
        }
        Collections.shuffle(order, new Random(written));
        Map<Long, Long> model = new HashMap<>();
        for (int k = 0; k < written; k++) {
            long cow = 3L * k + 11; // never consecutive
            table.insert(order.get(k), cow);
            model.put(order.get(k), cow);
        }
        assertThat(table.runsIn(table.bucket(cell))).isEqualTo(written);
        for (long chunk = cell - 1; chunk <= cell + ExceptionTable.MAX_RUN; chunk++) {
            assertThat(table.lookup(chunk)).as("chunk %d", chunk).isEqualTo(model.getOrDefault(chunk, -1L));
        }
    }

    private static void insert(ExceptionTable table, Map<Long, Long> model, Deque<Long> added, long chunk, long cow) {
        if (model.containsKey(chunk)) {
            return; // a copied chunk is not copied again
        }
        table.insert(chunk, cow);
        model.put(chunk, cow);
        added.push(chunk);
        assertNeighbourhood(table, model, chunk);
    }

    private static void assertNeighbourhood(ExceptionTable table, Map<Long, Long> model, long chunk) {
        for (long c = chunk - 2; c <= chunk + 2; c++) {
            assertThat(table.lookup(c)).as("chunk %d near %d", c, chunk).isEqualTo(model.getOrDefault(c, -1L));
        }
    }

    private static int totalRuns(ExceptionTable table) {
        int runs = 0;
        for (int b = 0; b < table.bucketCount(); b++) {
            runs += table.runsIn(b);
        }
        return runs;
    }
}
