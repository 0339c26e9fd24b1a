package io.blockwork.engine.dm.thin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The thin device's mapping cache: a hit is always the block cached for that very virtual block
 * (never a colliding block's), a forgotten block misses, and a snapshot's {@code clear} drops
 * everything; under contention too, with four threads whose blocks all collide in a few slots.
 */
@Tag("unit")
class MappingCacheTest {

    private static final long SLOT_SPAN = 1L << 20;

    @Test
    void hitsOnlyTheBlockItCachedAndForgetsOnlyThatOne() {
        MappingCache c = new MappingCache();
        assertThat(c.get(7)).isEqualTo(MappingCache.MISS);
        c.put(7, 1234);
        assertThat(c.get(7)).isEqualTo(1234);
        assertThat(c.get(7 + SLOT_SPAN)).as("same slot, another block").isEqualTo(MappingCache.MISS);

        c.forget(7 + SLOT_SPAN);
        assertThat(c.get(7)).as("forgetting a colliding block leaves this one").isEqualTo(1234);
        c.put(7 + SLOT_SPAN, 99);
        assertThat(c.get(7)).as("a collision replaces the older entry").isEqualTo(MappingCache.MISS);
        assertThat(c.get(7 + SLOT_SPAN)).isEqualTo(99);
        c.forget(7 + SLOT_SPAN);
        assertThat(c.get(7 + SLOT_SPAN)).isEqualTo(MappingCache.MISS);

        long last = (1L << 40) - 1;
        c.put(last, Integer.MAX_VALUE);
        assertThat(c.get(last)).as("the highest virtual and data blocks").isEqualTo(Integer.MAX_VALUE);
        c.put(0, 0);
        assertThat(c.get(0)).isZero();

        c.clear();
        assertThat(c.get(last)).isEqualTo(MappingCache.MISS);
        assertThat(c.get(0)).isEqualTo(MappingCache.MISS);
    }

    @Test
    void underContentionAHitIsAlwaysTheOwnBlockAndAForgottenBlockMisses() throws Exception {
        MappingCache c = new MappingCache();
        int threads = 4;
        int rounds = 200_000;
        AtomicInteger wrongHits = new AtomicInteger();
        AtomicInteger staleAfterForget = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            all.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < rounds; i++) {
                    // Eight slots, each shared by every thread's blocks: vblock = slot + tag * 2^20.
                    long vb = (i & 7) + ((long) (i % 61) * threads + me) * SLOT_SPAN;
                    c.put(vb, blockOf(vb));
                    long other = (i + 3 & 7) + ((long) (i % 59) * threads + (me + 1) % threads) * SLOT_SPAN;
                    for (long v : new long[] {vb, other}) {
                        long got = c.get(v);
                        if (got != MappingCache.MISS && got != blockOf(v)) {
                            wrongHits.incrementAndGet();
                        }
                    }
                    c.forget(vb);
                    if (c.get(vb) != MappingCache.MISS) { // only this thread puts vb
                        staleAfterForget.incrementAndGet();
                    }
                }
            }));
        }
        for (Thread t : all) {
            t.join();
        }
        assertThat(wrongHits).as("hits that returned another block's data block").hasValue(0);
        assertThat(staleAfterForget).as("hits on a block its owner had just forgotten").hasValue(0);
    }

    /** A data block that tells which virtual block it was cached for. */
    private static long blockOf(long vb) {
        return (vb * 0x9E3779B1L >>> 7) & Integer.MAX_VALUE;
    }
}
