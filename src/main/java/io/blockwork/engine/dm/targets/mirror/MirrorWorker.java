package io.blockwork.engine.dm.targets.mirror;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.copy.CopyResult;
import io.blockwork.engine.copy.CopyTarget;
import io.blockwork.engine.copy.RegionCopier;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The mirror's worker thread, after kmirrord: writes, recovery and the region log's upkeep.
 *
 * <p>Fast path (issue 20): under {@code explicit}, a write to a region the worker has already
 * recorded dirty, in sync and with no recovery anywhere, is sent to the legs by the submitting
 * thread ({@link #writeDirect}); it is counted in the region hash like the worker's writes, so
 * lazy clearing and recovery wait for it. Everything else still goes through the worker.
 *
 * <p>Design notes. {@code map} queues writes here and returns; completions queue events (a
 * region quiesced for recovery, a region copied). Each round of the loop is one batch of the
 * mirror's {@link BatchDispatch} (seed 003): finish copied regions, start recoveries, then take
 * every queued write, route it by its region's state, record the newly dirtied regions in the log
 * with one log write for the whole batch (FUA, before any of the batch's data is sent), and send
 * the writes to the legs. With {@code explicit} the batch's bios reach the legs when the round
 * ends; with {@code timer} they wait in the legs' queue plugs for the 3 ms unplug timer, as
 * kmirrord's did before it learnt to unplug.
 *
 * <p>Regions go back to clean lazily: a region whose last write ended is recorded clean once it
 * has been quiet for {@link #QUIET_NANOS} (a timer wakes the worker), or at suspend. A disk log
 * first flushes the legs, so that a region recorded clean holds the same data on every leg even
 * after a power cut. A recovered region is likewise flushed on every leg before it counts as in
 * sync.
 *
 * <p>Recovery copies out-of-sync regions from the default leg onto the others through a
 * {@link RegionCopier} (kcopyd), up to {@link #MAX_RECOVERY} regions at a time, throttled; a
 * region being recovered takes no writes (they wait in the region hash) and is copied only once
 * the writes already in flight there have ended.
 *
 * <p>Threads: everything but the queues and {@link #writeEnded} runs on the worker; control
 * operations (resume, suspend) hand it tasks and wait. The worker blocks only on its own
 * metadata I/O ({@link #execute}), never holding a lock.
 *
 * <p>Size note: over 400 lines because the worker's loop and everything only the worker touches
 * (the recovery cursor, quiet regions, the log's upkeep) stay in one file, where the thread
 * confinement that keeps them lock-free can be read at once.
 */
final class MirrorWorker implements MirrorIo {

    private static final System.Logger LOG = System.getLogger(MirrorWorker.class.getName());
    private static final AtomicInteger IDS = new AtomicInteger();

    /** Regions recovered at once. */
    static final int MAX_RECOVERY = 8;
    /** How long a region must be quiet before it is recorded clean. */
    static final long QUIET_NANOS = 1_000_000_000L;

    /** Completion-side news for the worker. */
    private sealed interface Event {}

    private record Quiesced(long region) implements Event {}

    private record Copied(long region, Leg source, List<Leg> targets, CopyResult result) implements Event {}

    private final MirrorSet set;
    private final DirtyLog log;
    private final RegionHash hash;
    private final BatchDispatch dispatch;
    private final BatchDispatch.Kind kind;
    private final String name;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Bio> writes = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean clearArmed = new AtomicBoolean();
    private final LongAdder directWrites = new LongAdder();
    private volatile boolean clearDue;
    private volatile boolean started;
    private volatile boolean closed;
    /** Created when the worker starts; closed with it. */
    private volatile RegionCopier copier;

    /* Worker-only state. */
    private final ArrayDeque<Bio> requeued = new ArrayDeque<>();
    private final Set<Long> awaitingQuiesce = new HashSet<>();
    private long cursor;
    /** Written on the worker; read by {@link #throttle} (under the mapped device's control lock, like suspend). */
    private volatile boolean recoveryStopped = true;
    private boolean frozen = true;
    private boolean allInSync;
    private CompletableFuture<Void> recoveryIdle;

    MirrorWorker(MirrorSet set, BatchDispatch.Kind kind) {
        this.set = set;
        this.log = set.log;
        this.hash = set.hash;
        this.kind = kind;
        this.dispatch = BatchDispatch.create(kind, set.ti.timer());
        this.name = "mirror-" + IDS.incrementAndGet();
        this.thread = Thread.ofPlatform().name("kmirrord-" + name).daemon(true).unstarted(this::loop);
    }

    /* ---- Control (any thread) ---- */

    /** Starts the thread and the copier; idempotent. The monitor orders start against close. */
    synchronized void start() {
        if (!started && !closed) {
            copier = new RegionCopier(name, RegionCopier.Config.DEFAULT.withDispatch(kind), set.ti.timer());
            started = true;
            thread.start();
        }
    }

    /** Queues a write; the worker routes and sends it (the kernel's queue_bio). */
    void queue(Bio write) {
        writes.add(write);
        LockSupport.unpark(thread);
    }

    /**
     * The fast path for a write to a region already recorded dirty (in sync, no recovery), under
     * {@code explicit} only: admitted in the region hash and sent to the legs from the submitting
     * thread, saving the hand-off to the worker. False if the write must be queued. Under
     * {@code timer} every write goes through the worker, as kmirrord's did (seed 003's old
     * behaviour stays measurable).
     */
    boolean writeDirect(Bio write) {
        if (kind != BatchDispatch.Kind.EXPLICIT || !started || closed) {
            return false;
        }
        long r = set.regionOf(write.offset());
        if (!hash.admitDirect(r)) {
            return false;
        }
        directWrites.increment();
        new MirrorWrite(set, this, write, r, set.writableLegs()).submitDirect();
        return true;
    }

    /** Writes sent by {@link #writeDirect}, without the worker. */
    long directWrites() {
        return directWrites.sum();
    }

    /**
     * Runs {@code task} on the worker and waits for it; for control operations only. Before the
     * worker starts nothing else touches its state, so the task runs on the caller.
     */
    <T> T call(Supplier<T> task) {
        if (Thread.currentThread() == thread || !started) {
            return task.get();
        }
        if (closed) {
            throw new IllegalStateException("mirror worker " + name + " is closed");
        }
        CompletableFuture<T> done = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                done.complete(task.get());
            } catch (RuntimeException | Error e) {
                done.completeExceptionally(e);
            }
        });
        LockSupport.unpark(thread);
        return join(done);
    }

    void run(Runnable task) {
        call(() -> {
            task.run();
            return null;
        });
    }

    private static <T> T join(CompletableFuture<T> f) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true; // control operations finish what they started
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Resume: writes may be recorded clean again and recovery starts over from the first region. */
    void resumeWork() {
        run(() -> {
            frozen = false;
            recoveryStopped = false;
            cursor = 0;
            copier.bytesPerSecond(set.throttle());
        });
    }

    /**
     * Presuspend: no new recoveries; waiting ones are dropped (their writes go on), and this waits
     * until the copies in flight have ended, unthrottled meanwhile.
     */
    void stopRecovery() {
        CompletableFuture<Void> idle = call(() -> {
            recoveryStopped = true;
            copier.bytesPerSecond(0);
            for (long r : awaitingQuiesce) {
                requeued.addAll(hash.endRecovery(r, false));
            }
            awaitingQuiesce.clear();
            recoveryIdle = new CompletableFuture<>();
            return recoveryIdle;
        });
        join(idle);
    }

    /** Postsuspend: every quiet region recorded clean now, then no log changes until resume. */
    void freeze() {
        run(() -> {
            clearQuiet(true);
            hash.forgetLogged();
            frozen = true;
        });
    }

    /** Changes the recovery throttle; while a suspend drains recovery it applies from the next resume. */
    void throttle(long bytesPerSecond) {
        set.throttle(bytesPerSecond);
        RegionCopier c = copier;
        if (c != null && !recoveryStopped) {
            c.bytesPerSecond(bytesPerSecond);
        }
    }

    synchronized void close() {
        closed = true;
        LockSupport.unpark(thread);
        RegionCopier c = copier;
        if (c != null) {
            c.close();
        }
    }

    long timerUnplugs() {
        RegionCopier c = copier;
        return dispatch.timerUnplugs() + (c == null ? 0 : c.timerUnplugs());
    }

    /* ---- Completion side (any thread) ---- */

    /** A write admitted to {@code region} ended; {@code diverged} if the legs may differ there now. */
    void writeEnded(long region, boolean diverged) {
        switch (hash.writeDone(region, diverged, set.ti.clock().getAsLong())) {
            case BUSY -> { }
            case IDLE -> armClear(QUIET_NANOS);
            case QUIESCED -> {
                events.add(new Quiesced(region));
                LockSupport.unpark(thread);
            }
        }
    }

    private void armClear(long delayNanos) {
        if (clearArmed.compareAndSet(false, true)) {
            set.ti.timer().schedule(Math.max(0, delayNanos), () -> {
                clearArmed.set(false);
                clearDue = true;
                LockSupport.unpark(thread);
            });
        }
    }

    /* ---- The loop ---- */

    private void loop() {
        while (!closed) {
            Runnable task;
            while ((task = tasks.poll()) != null) {
                task.run();
            }
            dispatch.beginBatch();
            try {
                handleEvents();
                startRecovery();
                doWrites();
                if (clearDue && !frozen) {
                    clearDue = false;
                    clearQuiet(false);
                }
            } catch (RuntimeException | Error e) {
                LOG.log(Level.ERROR, "mirror worker " + name + " failed a round", e);
            } finally {
                dispatch.endBatch();
            }
            if (recoveryIdle != null && hash.recovering() == 0) {
                recoveryIdle.complete(null);
                recoveryIdle = null;
            }
            if (writes.isEmpty() && events.isEmpty() && tasks.isEmpty() && requeued.isEmpty() && !clearDue) {
                LockSupport.park(this);
            }
        }
    }

    /* ---- Recovery ---- */

    private void handleEvents() {
        List<Copied> copied = new ArrayList<>();
        Event e;
        while ((e = events.poll()) != null) {
            switch (e) {
                case Quiesced q -> {
                    if (awaitingQuiesce.remove(q.region())) {
                        copy(q.region());
                    }
                }
                case Copied c -> copied.add(c);
            }
        }
        if (!copied.isEmpty()) {
            finishRecoveries(copied);
        }
    }

    private void startRecovery() {
        long rewind = hash.takeOutOfSyncSince();
        if (rewind >= 0) {
            cursor = Math.min(cursor, rewind);
        }
        if (recoveryStopped || frozen || cursor >= log.regionCount) {
            return;
        }
        Leg source = set.defaultLeg();
        if (set.recoveryTargets(source).isEmpty() || (set.handleErrors && source.lostWrites())) {
            return; // nothing to copy onto, or nothing trustworthy to copy from
        }
        while (cursor < log.regionCount && hash.recovering() < MAX_RECOVERY) {
            RegionHash.Recovery rec = hash.startRecovery(cursor);
            if (rec == null) {
                cursor = log.regionCount;
                break;
            }
            cursor = rec.region() + 1;
            if (rec.quiesced()) {
                copy(rec.region());
            } else {
                awaitingQuiesce.add(rec.region());
            }
        }
    }

    private void copy(long r) {
        Leg source = set.defaultLeg();
        List<Leg> targets = set.recoveryTargets(source);
        if (targets.isEmpty()) {
            requeued.addAll(hash.endRecovery(r, false));
            return;
        }
        long at = r * log.regionBytes;
        List<CopyTarget> to = targets.stream().map(l -> new CopyTarget(l.dev, l.offsetBytes + at)).toList();
        copier.copy(source.dev, source.offsetBytes + at, to, log.regionBytes, result -> {
            events.add(new Copied(r, source, targets, result));
            LockSupport.unpark(thread);
        });
    }

    /**
     * Copied regions become in sync once every leg has flushed them (so a power cut cannot take
     * the copy back); then they are recorded clean and the writes that waited go on.
     */
    private void finishRecoveries(List<Copied> copied) {
        boolean anyCopied = false;
        for (Copied c : copied) {
            if (!c.result().read().ok()) {
                set.fail(c.source(), Leg.Failure.SYNC);
            }
            for (int i : c.result().failedTargets()) {
                set.fail(c.targets().get(i), Leg.Failure.SYNC);
            }
            anyCopied |= c.result().ok();
        }
        boolean durable = !anyCopied || flushLegs();
        for (Copied c : copied) {
            boolean synced = c.result().ok() && durable;
            requeued.addAll(hash.endRecovery(c.region(), synced));
            if (synced) {
                log.clear(c.region());
            }
        }
        log.flush(this);
        if (!allInSync && log.allInSync()) {
            set.ti.triggerEvent(); // the mirror is in sync (the kernel's do_recovery)
        }
        allInSync = log.allInSync();
    }

    /**
     * Flushes every leg that takes writes; a leg whose flush fails is marked. True if what the
     * legs hold is durable on every leg that counts: all of them, or with {@code handle_errors}
     * those still taking writes.
     */
    private boolean flushLegs() {
        List<Leg> legs = set.writableLegs();
        List<IoStatus> done = execute(legs.stream().map(l -> Request.flush(l.dev)).toList());
        boolean ok = true;
        for (int i = 0; i < legs.size(); i++) {
            if (!done.get(i).ok()) {
                set.fail(legs.get(i), Leg.Failure.FLUSH);
                ok = false;
            }
        }
        return ok || (set.handleErrors && !set.writableLegs().isEmpty());
    }

    /* ---- Writes ---- */

    private void doWrites() {
        List<Bio> batch = new ArrayList<>(requeued);
        requeued.clear();
        Bio b;
        while ((b = writes.poll()) != null) {
            batch.add(b);
        }
        if (batch.isEmpty()) {
            return;
        }
        long[] regions = new long[batch.size()];
        for (int i = 0; i < regions.length; i++) {
            regions[i] = set.regionOf(batch.get(i).offset());
        }
        List<RegionHash.Route> routes = hash.admit(batch, regions);
        log.flush(this); // the batch's marks, durable before any of its data leaves
        hash.logged(regions, routes);
        for (int i = 0; i < regions.length; i++) {
            List<Leg> legs = switch (routes.get(i)) {
                case DELAYED -> null;
                case ALL_LEGS -> set.writableLegs();
                case DEFAULT_LEG -> {
                    Leg d = set.defaultLeg();
                    yield set.handleErrors && d.lostWrites() ? List.of() : List.of(d);
                }
            };
            if (legs != null) {
                new MirrorWrite(set, this, batch.get(i), regions[i], legs).submit(dispatch);
            }
        }
    }

    /* ---- Lazy clearing ---- */

    /** Records quiet regions clean (all quiet ones if {@code all}), flushing the legs first for a disk log. */
    private void clearQuiet(boolean all) {
        long now = set.ti.clock().getAsLong();
        List<Long> regions = hash.clearable(now, QUIET_NANOS, all);
        if (!regions.isEmpty() && (!log.persistent() || flushLegs())) {
            for (long r : regions) {
                log.clear(r);
            }
            hash.cleared(regions);
            log.flush(this);
        }
        long since = hash.nextQuietSince();
        if (since >= 0 && !all) {
            armClear(since + QUIET_NANOS - now);
        }
    }

    /* ---- Metadata I/O ---- */

    @Override
    public List<IoStatus> execute(List<Request> requests) {
        List<SyncIo.Waiter> waiters = new ArrayList<>(requests.size());
        for (Request r : requests) {
            SyncIo.Waiter w = new SyncIo.Waiter();
            waiters.add(w);
            dispatch.submit(r.device(), Bio.of(r.op(), r.offset(), r.length(), r.flags(), r.data(), w));
        }
        List<IoStatus> out = new ArrayList<>(waiters.size());
        for (SyncIo.Waiter w : waiters) {
            out.add(w.await());
        }
        return out;
    }

    /* ---- Observation ---- */

    int delayedWrites() {
        return hash.delayedWrites();
    }

    @Override
    public String toString() {
        return "MirrorWorker[" + name + ", " + kind.label() + "]";
    }
}
