package io.blockwork.engine.block;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The request-queue plug of Linux up to 2.6.38, kept to reproduce seed 003 side by side with the
 * per-thread {@link Plug}: a non-SYNC bio arriving at an idle queue plugs it, and the queue is
 * unplugged only by an explicit {@link #unplug()}, by reaching {@value #UNPLUG_THRESHOLD} held
 * requests ({@code unplug_thresh}), or by a 3 ms timer ({@code unplug_delay}). A submitter that
 * forgets to unplug makes every request wait for the timer; that was dm-raid1's O_SYNC slowdown.
 *
 * <p>A SYNC bio unplugs the queue at once, as {@code BIO_RW_SYNC} did.
 */
public final class QueuePlug {

    public static final int UNPLUG_THRESHOLD = 4;
    public static final long UNPLUG_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(3);

    private final BlockDevice target;
    private final DeadlineScheduler timer;
    private final long delayNanos;

    @GuardedBy("this")
    private List<Bio> held = new ArrayList<>();
    /** A timer armed for an older plug generation does nothing. */
    @GuardedBy("this")
    private long generation;
    private final LongAdder timerUnplugs = new LongAdder();
    private final LongAdder explicitUnplugs = new LongAdder();

    public QueuePlug(BlockDevice target, DeadlineScheduler timer) {
        this(target, timer, UNPLUG_DELAY_NANOS);
    }

    public QueuePlug(BlockDevice target, DeadlineScheduler timer, long delayNanos) {
        this.target = target;
        this.timer = timer;
        this.delayNanos = delayNanos;
    }

    public BlockDevice target() {
        return target;
    }

    public void submit(Bio bio) {
        List<Bio> release = null;
        long armFor = -1;
        synchronized (this) {
            held.add(bio);
            if (bio.flags().sync() || held.size() >= UNPLUG_THRESHOLD) {
                release = takeHeld();
            } else if (held.size() == 1) {
                armFor = generation;
            }
        }
        if (release != null) {
            dispatch(release);
        } else if (armFor >= 0) {
            long gen = armFor;
            timer.schedule(delayNanos, () -> timerFired(gen));
        }
    }

    /** Explicit unplug (blk_unplug): dispatches whatever the queue holds. */
    public void unplug() {
        List<Bio> release;
        synchronized (this) {
            if (held.isEmpty()) {
                return;
            }
            release = takeHeld();
        }
        explicitUnplugs.increment();
        dispatch(release);
    }

    private void timerFired(long gen) {
        List<Bio> release;
        synchronized (this) {
            if (gen != generation || held.isEmpty()) {
                return;
            }
            release = takeHeld();
        }
        timerUnplugs.increment();
        dispatch(release);
    }

    @GuardedBy("this")
    private List<Bio> takeHeld() {
        List<Bio> out = held;
        held = new ArrayList<>();
        generation++;
        return out;
    }

    private void dispatch(List<Bio> bios) {
        for (Bio b : bios) {
            target.submit(b);
        }
    }

    /** How many times the 3 ms timer had to release held bios. */
    public long timerUnplugs() {
        return timerUnplugs.sum();
    }

    public long explicitUnplugs() {
        return explicitUnplugs.sum();
    }
}
