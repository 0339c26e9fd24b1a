package io.blockwork.system.app;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Watches whether work gets a thread: the virtual-thread scheduler's carriers (disk I/O, md
 * daemons, thin copies and NBD's remote disks run there) and the HTTP request pool.
 *
 * <p>Why. A virtual thread that computes is never preempted, so a few CPU-bound ones hold every
 * carrier and everything else on virtual threads waits (issue 30: two requests parsing
 * 3,000,000-digit sizes stalled NBD reads for 17 s while health said UP). HTTP requests run on
 * platform threads now, so that cause is gone, but a bug or a heavy engine path can still do it,
 * and an operator should see it in health rather than guess.
 *
 * <p>How. A platform thread (it keeps running when every carrier is held) wakes every
 * {@code probeEvery}. When no probe is waiting it starts one: a virtual thread that only clears
 * the time stamp it was started at. A probe that has not run yet tells how long the carriers have been
 * busy. The request pool is saturated while every thread is busy and requests queue behind them;
 * the watch notes when that began.
 */
@Component
public class StallWatch implements InitializingBean, DisposableBean {

    /** What the watch saw at one moment: how long each kind of work has been waiting, 0 if it is not. */
    public record Stalls(Duration carriersBusyFor, Duration requestPoolSaturatedFor, Optional<PoolUse> requestPool) {}

    /** The request pool's figures at that moment. */
    public record PoolUse(int busy, int max, int queued) {}

    /** "Not waiting" in the two time stamps below (System.nanoTime may be any other value). */
    private static final long NONE = Long.MIN_VALUE;

    private final HealthProperties properties;
    private final LongSupplier clock;
    private final AtomicReference<RequestPool> requestPool = new AtomicReference<>();
    /** When the waiting probe was started, or NONE; set by the watch, cleared by the probe itself. */
    private final AtomicLong probeWaitingSince = new AtomicLong(NONE);
    /** When the request pool was first seen saturated in the current stretch, or NONE; only the watch writes it. */
    private volatile long saturatedSince = NONE;
    private volatile boolean stopped;
    private Thread thread;

    @Autowired
    StallWatch(HealthProperties properties) {
        this(properties, System::nanoTime);
    }

    /** Without {@link #afterPropertiesSet} nothing runs by itself: a test calls {@link #look} on its own clock. */
    StallWatch(HealthProperties properties, LongSupplier clock) {
        this.properties = properties;
        this.clock = clock;
    }

    @Override
    public void afterPropertiesSet() {
        thread = Thread.ofPlatform().daemon().name("blockwork-stall-watch").start(this::run);
    }

    /** The web layer hands over its request pool once the server has started. */
    public void watch(RequestPool pool) {
        requestPool.set(pool);
    }

    public Duration stallAfter() {
        return properties.stallAfter();
    }

    public Stalls now() {
        long now = clock.getAsLong();
        long probe = probeWaitingSince.get();
        long saturated = saturatedSince;
        RequestPool pool = requestPool.get();
        return new Stalls(since(probe, now), since(saturated, now),
                Optional.ofNullable(pool).map(p -> new PoolUse(p.busy(), p.max(), p.queued())));
    }

    private static Duration since(long start, long now) {
        return start == NONE ? Duration.ZERO : Duration.ofNanos(Math.max(0, now - start));
    }

    private void run() {
        long period = properties.probeEvery().toNanos();
        while (!stopped) {
            look();
            LockSupport.parkNanos(period);
        }
    }

    /** One look: start a probe unless one is still waiting, and note the request pool's state. */
    void look() {
        long now = clock.getAsLong();
        if (probeWaitingSince.compareAndSet(NONE, now)) {
            startProbe(() -> probeWaitingSince.set(NONE));
        }
        RequestPool pool = requestPool.get();
        boolean saturated = pool != null && pool.queued() > 0 && pool.busy() >= pool.max();
        if (!saturated) {
            saturatedSince = NONE;
        } else if (saturatedSince == NONE) {
            saturatedSince = now;
        }
    }

    /** Starts the probe on a virtual thread; a test may run it some other way. */
    void startProbe(Runnable probe) {
        Thread.ofVirtual().name("blockwork-stall-probe").start(probe);
    }

    @Override
    public void destroy() {
        stopped = true;
        if (thread != null) {
            thread.interrupt();
        }
    }
}
