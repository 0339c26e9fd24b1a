package io.blockwork.engine.md;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The stripe workers shared by every raid4/5/6 array (md's raid5 worker groups): daemon threads
 * that compute full-stripe parity while submitters write data members. One per core, at most
 * four: a worker only ever does a parity pass and its parity members' writes, never waits.
 */
final class StripeWorkers {

    private static final ExecutorService POOL = Executors.newFixedThreadPool(
            Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())),
            Thread.ofPlatform().name(ParityThreads.WORKER_THREAD_PREFIX, 0).daemon(true).factory());

    private StripeWorkers() {}

    static void execute(Runnable task) {
        POOL.execute(task);
    }
}
