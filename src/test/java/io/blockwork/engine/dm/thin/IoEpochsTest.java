package io.blockwork.engine.dm.thin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The I/O epochs under contention: three threads enter and exit as bios do while a fourth keeps
 * scheduling work. Every piece of work runs only after each bio that had entered before it was
 * scheduled has exited, and none is stranded (an exit that empties an epoch while work waits must
 * sweep it, without a lock on the I/O path).
 */
@Tag("unit")
class IoEpochsTest {

    @Test
    void workWaitsForEarlierIoAndIsNeverStranded() throws Exception {
        IoEpochs epochs = new IoEpochs();
        Set<Long> inFlight = ConcurrentHashMap.newKeySet();
        AtomicLong ids = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger violations = new AtomicInteger();
        List<Thread> io = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            io.add(Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    int e = epochs.enter();
                    long id = ids.incrementAndGet();
                    inFlight.add(id);
                    Thread.onSpinWait();
                    inFlight.remove(id);
                    epochs.exit(e);
                }
            }));
        }
        int works = 20_000;
        CountDownLatch ran = new CountDownLatch(works);
        for (int w = 0; w < works; w++) {
            Set<Long> before = Set.copyOf(inFlight);
            epochs.afterCurrent(() -> {
                for (long id : before) {
                    if (inFlight.contains(id)) {
                        violations.incrementAndGet();
                    }
                }
                ran.countDown();
            });
        }
        stop.set(true);
        for (Thread t : io) {
            t.join();
        }
        assertThat(ran.await(30, TimeUnit.SECONDS)).as("every piece of work ran once the I/O drained").isTrue();
        assertThat(violations).as("work that ran while I/O from before it was still in flight").hasValue(0);
    }
}
