package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The pool of connection threads: reuse, names, escaping errors, and idle threads leaving. */
@Tag("unit")
class ConnectionThreadsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void aThreadWhoseTaskEndedRunsTheNextTaskUnderItsName() throws Exception {
        ConnectionThreads threads = new ConnectionThreads();
        CompletableFuture<Thread> first = new CompletableFuture<>();
        Thread t1 = threads.start("nbd-conn-1", () -> first.complete(Thread.currentThread()), (t, e) -> { });
        assertThat(first.get(10, TimeUnit.SECONDS)).isSameAs(t1);
        await().atMost(WAIT).until(() -> threads.idleThreads() == 1);
        assertThat(t1.getName()).isEqualTo("nbd-idle");

        CompletableFuture<String> second = new CompletableFuture<>();
        Thread t2 = threads.start("nbd-conn-2", () -> second.complete(Thread.currentThread().getName()),
                (t, e) -> { });
        assertThat(t2).as("the parked thread, not a new one").isSameAs(t1);
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("nbd-conn-2");
    }

    @Test
    void busyThreadsAreNotHandedASecondTask() throws Exception {
        ConnectionThreads threads = new ConnectionThreads();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch ran = new CountDownLatch(2);
        Thread a = threads.start("a", () -> {
            ran.countDown();
            awaitQuietly(release);
        }, (t, e) -> { });
        Thread b = threads.start("b", ran::countDown, (t, e) -> { });
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(b).isNotSameAs(a);
        release.countDown();
    }

    @Test
    void anEscapingErrorGoesToTheTasksHandlerAndTheThreadServesOn() throws Exception {
        ConnectionThreads threads = new ConnectionThreads();
        AtomicReference<String> reported = new AtomicReference<>();
        CountDownLatch handled = new CountDownLatch(1);
        Thread t1 = threads.start("nbd-conn-7", () -> {
            throw new IllegalStateException("bug");
        }, (t, e) -> {
            reported.set(t.getName() + ": " + e.getMessage());
            handled.countDown();
        });
        assertThat(handled.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(reported.get()).isEqualTo("nbd-conn-7: bug");
        await().atMost(WAIT).until(() -> threads.idleThreads() == 1);

        CompletableFuture<Boolean> next = new CompletableFuture<>();
        assertThat(threads.start("nbd-conn-8", () -> next.complete(Thread.currentThread().isInterrupted()),
                (t, e) -> { })).isSameAs(t1);
        assertThat(next.get(10, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void anInterruptAtATasksEndDoesNotReachTheNextTask() throws Exception {
        ConnectionThreads threads = new ConnectionThreads();
        Thread t1 = threads.start("x", () -> Thread.currentThread().interrupt(), (t, e) -> { });
        await().atMost(WAIT).until(() -> threads.idleThreads() == 1);
        CompletableFuture<Boolean> next = new CompletableFuture<>();
        assertThat(threads.start("y", () -> next.complete(Thread.currentThread().isInterrupted()), (t, e) -> { }))
                .isSameAs(t1);
        assertThat(next.get(10, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void anIdleThreadEndsAfterItsKeepIdleTime() throws Exception {
        ConnectionThreads threads = new ConnectionThreads(Duration.ofMillis(50));
        CountDownLatch ran = new CountDownLatch(1);
        Thread t1 = threads.start("short", ran::countDown, (t, e) -> { });
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        t1.join(WAIT);
        assertThat(t1.isAlive()).as("no thread stays parked once idle for its time").isFalse();
        assertThat(threads.idleThreads()).isZero();

        CountDownLatch again = new CountDownLatch(1);
        assertThat(threads.start("fresh", again::countDown, (t, e) -> { })).isNotSameAs(t1);
        assertThat(again.await(10, TimeUnit.SECONDS)).isTrue();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
