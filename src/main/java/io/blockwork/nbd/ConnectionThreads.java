package io.blockwork.nbd;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.locks.LockSupport;

/**
 * The platform threads that run connections (a reader and a writer each), kept parked for a while
 * after their connection ends so that the next connection starts on them instead of on new ones.
 *
 * <p>Why. Clients such as nbdcopy and qemu-img open new connections for every copy (nbdcopy
 * several, one after the other), and a client waits for the server's greeting and for its first
 * reply. Creating a platform thread costs a clone, a stack and the JVM's thread set-up, and the
 * creating thread waits until the new one is running: measured from the client (2026-12-02), the
 * greeting came about 1.5 ms after connect on a loaded machine where nbdkit's came in 0.4 ms.
 * Handing a connection to a parked thread costs one unpark.
 *
 * <p>How. An idle thread sits in {@link #idle} (most recently used first) and parks for at most
 * {@link #KEEP_IDLE}. {@link #start} takes one out of the deque, which makes it the taker's
 * alone, gives it the task and unparks it; an idle thread whose time is up leaves only if it can
 * still remove itself from the deque, and otherwise waits for the task its taker is handing over.
 * Idle threads park (no spinning), and there are never more of them than connection threads that
 * ended within the last {@link #KEEP_IDLE}. A task's escaping error goes to its own handler, as
 * with a fresh thread, and the thread goes back to the pool.
 */
final class ConnectionThreads implements NbdServer.ThreadStarter {

    static final Duration KEEP_IDLE = Duration.ofSeconds(30);
    private static final String IDLE_NAME = "nbd-idle";

    private final long keepIdleNanos;
    private final ConcurrentLinkedDeque<Worker> idle = new ConcurrentLinkedDeque<>();

    ConnectionThreads() {
        this(KEEP_IDLE);
    }

    ConnectionThreads(Duration keepIdle) {
        this.keepIdleNanos = keepIdle.toNanos();
    }

    private record Task(String name, Runnable body, Thread.UncaughtExceptionHandler handler) {}

    private final class Worker implements Runnable {
        private volatile Task next;
        private Thread thread;

        @Override
        public void run() {
            Task task = next;
            while (task != null) {
                next = null;
                runOne(task);
                task = awaitNext();
            }
        }

        private void runOne(Task task) {
            Thread me = Thread.currentThread();
            me.setName(task.name());
            try {
                task.body().run();
            } catch (Throwable e) { // what a fresh thread would hand to its uncaught-exception handler
                task.handler().uncaughtException(me, e);
            }
            Thread.interrupted(); // a task interrupted at its end must not disturb the next one
            me.setName(IDLE_NAME);
        }

        /** Parks in the pool until a task comes, or returns null when idle for too long. */
        private Task awaitNext() {
            idle.offerFirst(this);
            long deadline = System.nanoTime() + keepIdleNanos;
            Task task;
            while ((task = next) == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0 && idle.remove(this)) {
                    return null;
                }
                // Past the deadline and not in the deque: a taker owns this thread and is handing over.
                Thread.interrupted(); // an interrupt meant for the ended task would make park return at once: a spin
                LockSupport.parkNanos(this, Math.max(left, 1_000_000L));
            }
            return task;
        }
    }

    @Override
    public Thread start(String name, Runnable task, Thread.UncaughtExceptionHandler handler) {
        Task t = new Task(name, task, handler);
        Worker w = idle.pollFirst();
        if (w != null) {
            w.next = t;
            LockSupport.unpark(w.thread);
            return w.thread;
        }
        w = new Worker();
        w.next = t;
        w.thread = Thread.ofPlatform().daemon().name(name).unstarted(w);
        w.thread.start();
        return w.thread;
    }

    /** Threads parked in the pool now. */
    int idleThreads() {
        return idle.size();
    }
}
