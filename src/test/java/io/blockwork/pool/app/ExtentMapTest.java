package io.blockwork.pool.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class ExtentMapTest {

    private static ExtentRun run(long start, long count) {
        return new ExtentRun(start, count);
    }

    @Test
    void freeRunsAreTheGapsBetweenAllocatedRuns() {
        ExtentMap map = ExtentMap.of(100, List.of(run(10, 5), run(0, 2), run(50, 50)));
        assertThat(map.freeRuns()).containsExactly(run(2, 8), run(15, 35));
        assertThat(map.freeExtents()).isEqualTo(43);
        assertThat(map.usedExtents()).isEqualTo(57);
        assertThat(map.largestFreeRun()).isEqualTo(35);
    }

    @Test
    void overlappingOrOutOfRangeRunsAreRefused() {
        assertThatThrownBy(() -> ExtentMap.of(100, List.of(run(0, 10), run(5, 10))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("overlap");
        assertThatThrownBy(() -> ExtentMap.of(100, List.of(run(95, 10))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("past the pool's 100 extents");
    }

    @Test
    void aRunThatFitsIsChosenByBestFit() {
        // free: 0+10, 20+4, 30+6, 40+60
        ExtentMap map = ExtentMap.of(100, List.of(run(10, 10), run(24, 6), run(36, 4)));
        assertThat(map.place(5, -1)).contains(List.of(run(30, 5)));
        assertThat(map.place(4, -1)).contains(List.of(run(20, 4)));
        assertThat(map.place(11, -1)).contains(List.of(run(40, 11)));
    }

    @Test
    void bestFitTiesGoToTheLowestRun() {
        ExtentMap map = ExtentMap.of(30, List.of(run(5, 5), run(15, 5), run(25, 5)));
        assertThat(map.place(5, -1)).contains(List.of(run(0, 5)));
    }

    @Test
    void anExtensionContinuesInPlaceWhenTheRunAfterItHoldsAll() {
        // free: 0+10 (best fit for 3), 20+80 (right after an owner ending at 20)
        ExtentMap map = ExtentMap.of(100, List.of(run(10, 10)));
        assertThat(map.place(3, 20)).contains(List.of(run(20, 3)));
        assertThat(map.place(3, -1)).contains(List.of(run(0, 3)));
    }

    @Test
    void withoutARunThatFitsTheFreeRunsAreTakenInPoolOrder() {
        // free: 1+1, 3+1, 5+1, 7+3
        ExtentMap map = ExtentMap.of(10, List.of(run(0, 1), run(2, 1), run(4, 1), run(6, 1)));
        assertThat(map.place(5, -1)).contains(List.of(run(1, 1), run(3, 1), run(5, 1), run(7, 2)));
    }

    @Test
    void moreThanIsFreeCannotBePlaced() {
        ExtentMap map = ExtentMap.of(10, List.of(run(0, 4)));
        assertThat(map.place(7, -1)).isEmpty();
        assertThat(map.place(6, -1)).contains(List.of(run(4, 6)));
        assertThatThrownBy(() -> map.place(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Placements only ever take free extents, exactly as many as asked, and the counts add up. */
    @Test
    void randomAllocationsNeverOverlapAndAccountForEveryExtent() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            long total = 1 + random.nextInt(300);
            BitSet used = new BitSet();
            List<ExtentRun> allocated = new ArrayList<>();
            for (int step = 0; step < 40; step++) {
                ExtentMap map = ExtentMap.of(total, allocated);
                assertThat(map.freeExtents()).isEqualTo(total - used.cardinality());
                if (!allocated.isEmpty() && random.nextInt(3) == 0) {
                    ExtentRun freed = allocated.remove(random.nextInt(allocated.size()));
                    used.clear((int) freed.start(), (int) freed.end());
                    continue;
                }
                long want = 1 + random.nextInt(40);
                var placed = map.place(want, random.nextBoolean() ? random.nextLong(total) : -1);
                assertThat(placed.isPresent()).isEqualTo(want <= map.freeExtents());
                if (placed.isEmpty()) {
                    continue;
                }
                assertThat(placed.get().stream().mapToLong(ExtentRun::count).sum()).isEqualTo(want);
                if (want <= map.largestFreeRun()) {
                    assertThat(placed.get()).as("one run when one fits").hasSize(1);
                }
                for (ExtentRun r : placed.get()) {
                    assertThat(used.get((int) r.start(), (int) r.end()).isEmpty()).as("placed on free extents").isTrue();
                    used.set((int) r.start(), (int) r.end());
                    allocated.add(r);
                }
            }
        }
    }

    @Test
    void sizesForPeopleAreRoundedDown() {
        assertThat(ByteUnits.human(0)).isEqualTo("0 B");
        assertThat(ByteUnits.human(4L << 20)).isEqualTo("4 MiB");
        assertThat(ByteUnits.human(300L * (4 << 20))).isEqualTo("1.17 GiB");
        assertThat(ByteUnits.human((1L << 30) - 1)).isEqualTo("1023.99 MiB");
        assertThat(ByteUnits.extents(300, 4L << 20)).isEqualTo("300 extents of 4 MiB");
        assertThat(ByteUnits.extents(1, 64L << 10)).isEqualTo("1 extent of 64 KiB");
    }
}
