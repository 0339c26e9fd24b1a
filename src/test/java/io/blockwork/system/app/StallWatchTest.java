package io.blockwork.system.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The watch's arithmetic on a clock of the test's own; its probes run when the test says. */
@Tag("unit")
class StallWatchTest {

    private final AtomicLong clock = new AtomicLong(-5_000_000_000L); // nanoTime may be negative
    private final List<Runnable> probes = new ArrayList<>();
    private final StallWatch watch = new StallWatch(new HealthProperties(Duration.ofSeconds(5), Duration.ofMillis(250)),
            clock::get) {
        @Override
        void startProbe(Runnable probe) {
            probes.add(probe);
        }
    };

    private void advance(Duration d) {
        clock.addAndGet(d.toNanos());
    }

    @Test
    void aProbeThatDoesNotRunIsHowLongTheCarriersHaveBeenBusy() {
        watch.look();
        advance(Duration.ofSeconds(3));
        watch.look(); // still waiting: no second probe
        assertThat(probes).hasSize(1);
        assertThat(StallHealthIndicator.reason(watch.now(), watch.stallAfter())).isNull();

        advance(Duration.ofSeconds(4));
        assertThat(watch.now().carriersBusyFor()).isEqualTo(Duration.ofSeconds(7));
        assertThat(StallHealthIndicator.reason(watch.now(), watch.stallAfter()))
                .isEqualTo("virtual-thread carriers busy for 7.0 s: disk I/O, md daemons and thin copies are stalled "
                        + "(a thread dump shows what holds them)");

        probes.getFirst().run();
        assertThat(watch.now().carriersBusyFor()).isZero();
        assertThat(StallHealthIndicator.reason(watch.now(), watch.stallAfter())).isNull();
        watch.look();
        assertThat(probes).hasSize(2);
    }

    @Test
    void aSaturatedRequestPoolCountsFromWhenItFilledAndResetsWhenItDrains() {
        int[] pool = {200, 200, 3}; // busy, max, queued
        watch.watch(new RequestPool() {
            public int busy() {
                return pool[0];
            }

            public int max() {
                return pool[1];
            }

            public int queued() {
                return pool[2];
            }
        });
        watch.look();
        probes.forEach(Runnable::run);
        advance(Duration.ofSeconds(6));
        watch.look();
        probes.forEach(Runnable::run);
        assertThat(StallHealthIndicator.reason(watch.now(), watch.stallAfter()))
                .isEqualTo("all 200 request threads busy for 6.0 s, 3 requests waiting");

        pool[2] = 0; // every thread busy but nothing waits: not saturated
        watch.look();
        assertThat(watch.now().requestPoolSaturatedFor()).isZero();
        pool[2] = 1;
        watch.look();
        advance(Duration.ofSeconds(1));
        assertThat(watch.now().requestPoolSaturatedFor()).isEqualTo(Duration.ofSeconds(1));
    }
}
