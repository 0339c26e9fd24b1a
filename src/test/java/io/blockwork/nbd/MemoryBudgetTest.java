package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The server-wide budget: reservations, the shared pool, the per-connection cap, and waking. */
@Tag("unit")
class MemoryBudgetTest {

    private static final long MIB = 1 << 20;

    private final MemoryBudget budget = new MemoryBudget(4 * MIB, 16 * MIB, 10 * MIB);

    @Test
    void whatFitsInTheReservationCostsThePoolNothing() {
        MemoryBudget.Account a = budget.open();
        assertThat(a.tryTake(3 * MIB)).isTrue();
        assertThat(a.tryTake(MIB)).isTrue();
        assertThat(budget.sharedInUse()).isZero();
        assertThat(a.tryTake(MIB)).isTrue();
        assertThat(budget.sharedInUse()).isEqualTo(MIB);
        a.give(2 * MIB);
        assertThat(budget.sharedInUse()).isZero();
        assertThat(a.held()).isEqualTo(3 * MIB);
    }

    @Test
    void anAccountCrowdedOutOfThePoolStillHasItsReservation() {
        MemoryBudget.Account hog = budget.open();
        MemoryBudget.Account other = budget.open();
        assertThat(hog.tryTake(14 * MIB)).isTrue(); // 4 of its own + all 10 shared
        assertThat(hog.tryTake(1)).isFalse();
        assertThat(budget.sharedInUse()).isEqualTo(10 * MIB);

        assertThat(other.tryTake(4 * MIB)).isTrue();
        assertThat(other.tryTake(1)).as("nothing left to borrow").isFalse();
    }

    @Test
    void noAccountHoldsMoreThanItsCap() {
        MemoryBudget roomy = new MemoryBudget(4 * MIB, 8 * MIB, 100 * MIB);
        MemoryBudget.Account a = roomy.open();
        assertThat(a.tryTake(8 * MIB)).isTrue();
        assertThat(a.tryTake(1)).isFalse();
        assertThat(roomy.sharedInUse()).isEqualTo(4 * MIB);
    }

    @Test
    void aWaitingTakeIsWokenByItsOwnGive() throws Exception {
        MemoryBudget.Account a = new MemoryBudget(4 * MIB, 8 * MIB, 100 * MIB).open();
        assertThat(a.tryTake(8 * MIB)).isTrue(); // at its cap
        CountDownLatch waiting = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                a.take(MIB, waiting::countDown);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        waiting.await();
        a.give(MIB);
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(a.held()).isEqualTo(8 * MIB);
    }

    @Test
    void aTakeWaitingForThePoolIsWokenWhenAnotherAccountRepays() throws Exception {
        MemoryBudget.Account hog = budget.open();
        MemoryBudget.Account other = budget.open();
        assertThat(hog.tryTake(14 * MIB)).isTrue();
        assertThat(other.tryTake(4 * MIB)).isTrue();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                other.take(2 * MIB, waiting::countDown);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        waiting.await();
        hog.give(MIB); // 1 MiB back to the pool: not enough for the 2 it waits for
        hog.give(2 * MIB);
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(budget.sharedInUse()).isEqualTo(9 * MIB); // hog 11 - 4, other 6 - 4
    }

    @Test
    void aWaitingTakeEndsWhenItsThreadIsInterrupted() throws Exception {
        MemoryBudget.Account a = budget.open();
        assertThat(a.tryTake(14 * MIB)).isTrue(); // its reservation and the whole pool
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                a.take(MIB, waiting::countDown);
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        waiting.await();
        t.interrupt();
        t.join(10_000);
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    }

    @Test
    void closingAnAccountGivesBackWhatItHeld() {
        MemoryBudget.Account a = budget.open();
        assertThat(a.tryTake(9 * MIB)).isTrue();
        assertThat(a.close()).isEqualTo(9 * MIB);
        assertThat(budget.sharedInUse()).isZero();
    }

    @Test
    void underRacingTakesAndGivesThePoolNeverOverflowsAndEndsEmpty() throws Exception {
        int threads = 4;
        AtomicBoolean overflow = new AtomicBoolean();
        AtomicLong peak = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            MemoryBudget.Account a = budget.open();
            int seed = i;
            workers.add(Thread.ofPlatform().start(() -> {
                Random r = new Random(seed);
                java.util.ArrayDeque<Long> held = new java.util.ArrayDeque<>();
                for (int n = 0; n < 200_000; n++) {
                    if (!held.isEmpty() && (r.nextBoolean() || held.size() > 40)) {
                        a.give(held.poll());
                    } else {
                        long bytes = 1024 + r.nextInt((int) (2 * MIB));
                        if (a.tryTake(bytes)) {
                            held.add(bytes);
                        }
                    }
                    long used = budget.sharedInUse();
                    peak.accumulateAndGet(used, Math::max);
                    if (used > 10 * MIB) {
                        overflow.set(true);
                    }
                }
                held.forEach(a::give);
            }));
        }
        for (Thread t : workers) {
            t.join(60_000);
        }
        assertThat(overflow).isFalse();
        assertThat(peak.get()).as("the pool was used").isPositive();
        await().atMost(Duration.ofSeconds(60)).until(() -> budget.sharedInUse() == 0);
    }
}
