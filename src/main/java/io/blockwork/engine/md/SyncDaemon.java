package io.blockwork.engine.md;

import io.blockwork.engine.event.EngineEvent;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * One array's md thread: runs recovery onto spares and replacements, the initial resync, and
 * requested checks and repairs, one window at a time, each window under the level's barrier so
 * normal I/O keeps flowing in between.
 *
 * <p>Order of work, as md_check_recovery has it: recovery first (a missing copy is the larger
 * risk), then resync, then a requested check or repair. Progress survives a pause (the daemon
 * parks between windows), and recovery resumes from the member's rebuilt mark even after an
 * abort.
 *
 * <p>Speed: never above {@code max}; while the array also serves normal I/O, paced down to
 * {@code min} (md's speed_limit_min/max with is_mddev_idle). The pacing sleeps on this thread
 * only, between windows, with no barrier raised.
 *
 * <p>With a write-intent bitmap a resync visits only the chunks it marks NEEDED, and a member
 * re-added through it copies only those; windows skipped that way cost no I/O and no pacing.
 * With superblocks, progress is checkpointed (the members' recovery_offset, the array's
 * resync_offset) every {@link #CHECKPOINT_NANOS} or sixteenth of the work, so a restart carries on
 * from the last checkpoint.
 *
 * <p>Threading: one virtual thread per array. Control calls (pause, request, stop) set volatile
 * fields and unpark it; {@link #status} is an immutable snapshot republished after each window.
 *
 * <p>Size note: just over 400 lines because the windows loop, its pacing, its checkpoints and its
 * events (start, progress at most once a second, end on every exit) all follow one position on
 * one thread; split, each part would need that position handed to it window by window.
 */
final class SyncDaemon {

    private static final int MARKS = 10;
    private static final long MARK_STEP = TimeUnit.SECONDS.toNanos(1);
    private static final long CHECKPOINT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Redundancy level;
    private final MemberSet members;
    /** Normal I/O requests the array has received: a change since the last window means busy. */
    private final LongSupplier userIo;
    /** Told after a member change the daemon made (a spare taken into a slot, a rebuild or resync finished). */
    private final Runnable changed;
    /** Publishes start, progress and end as engine events, with the array's name at the time. */
    private final Consumer<Function<String, EngineEvent>> publish;
    private final Thread thread;

    private volatile boolean stopping;
    private volatile boolean paused;
    private volatile boolean abortScrub;
    /** A check or repair asked for and not yet started; set under the monitor. */
    private volatile SyncAction requested;
    private volatile SyncStatus status = SyncStatus.IDLE;
    /** md's last_sync_action: the action that ran most recently, finished or not. */
    private volatile SyncAction lastAction = SyncAction.IDLE;
    private volatile SpeedLimits limits;
    /** md's mismatch_cnt, in sectors; reset when a resync, check or repair starts. */
    private final AtomicLong mismatches = new AtomicLong();

    // Daemon-thread state.
    private MemorySegment[] buffers;
    private final long[] markTime = new long[MARKS];
    private final long[] markDone = new long[MARKS];
    private int lastMark;
    /** When the last progress event went out; at most one a second. */
    private long lastProgressEvent;
    private long lastUserIo;
    private long paceRate;
    private long paceStart;
    private long paceBytes;
    private long checkpointNanos;
    private long checkpointPos;
    /** Bytes recovery has copied onto members since the array started (skipped windows excluded). */
    private final AtomicLong recoveredBytes = new AtomicLong();

    SyncDaemon(String arrayName, Redundancy level, MemberSet members, SpeedLimits limits, LongSupplier userIo,
               Runnable changed, Consumer<Function<String, EngineEvent>> publish) {
        this.level = level;
        this.members = members;
        this.limits = limits;
        this.userIo = userIo;
        this.changed = changed;
        this.publish = publish;
        this.thread = Thread.ofVirtual().name("md-" + arrayName + "-sync").unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /** Stops after the current window; waits a bounded time for the thread to leave. */
    void stop() {
        stopping = true;
        LockSupport.unpark(thread);
        try {
            thread.join(Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Something changed (a spare arrived, a member failed): look for work. */
    void wake() {
        LockSupport.unpark(thread);
    }

    /* ---- Control ---- */

    /** Starts a check or repair; {@code inactive} is why the array serves no I/O, or null. */
    synchronized void request(SyncAction action, String inactive) {
        if (inactive != null) {
            throw new MdStateException("action", "cannot start " + action.label() + ": the array is inactive (" + inactive + ")");
        }
        SyncStatus s = status;
        if (s.action() != SyncAction.IDLE || requested != null) {
            SyncAction busy = requested != null ? requested : s.action();
            throw new MdStateException("action", "cannot start " + action.label() + ": " + busy.label() + " is in progress");
        }
        if (level.syncedTo() != Long.MAX_VALUE || members.rebuildPending()) {
            throw new MdStateException("action", "cannot start " + action.label() + " before the array's resync or recovery has finished");
        }
        abortScrub = false;
        requested = action;
        status = new SyncStatus(action, paused, 0, level.sizeBytes(), 0, -1, null);
        wake();
    }

    /** md's "idle": ends a running or requested check/repair (resync and recovery carry on). */
    synchronized void abortScrub() {
        requested = null;
        abortScrub = true;
        wake();
    }

    void pause() {
        paused = true;
        status = status.paused(true);
    }

    void resume() {
        paused = false;
        // Shown unpaused at once, not only after the next window (speed and ETA unknown until then).
        SyncStatus s = status;
        if (s.paused()) {
            status = s.paused(false);
        }
        wake();
    }

    boolean paused() {
        return paused;
    }

    void limits(SpeedLimits l) {
        limits = l;
        wake();
    }

    SpeedLimits limits() {
        return limits;
    }

    SyncStatus status() {
        return status;
    }

    SyncAction lastAction() {
        return lastAction;
    }

    long mismatchSectors() {
        return mismatches.get();
    }

    long recoveredBytes() {
        return recoveredBytes.get();
    }

    /* ---- The thread ---- */

    private void run() {
        while (!stopping) {
            if (paused) {
                LockSupport.park(this);
                continue;
            }
            Member target = members.nextToRebuild();
            if (target != null) {
                recover(target);
            } else if (level.syncedTo() < level.sizeBytes() && members.lostReason() == null && level.canResync()) {
                scrub(SyncAction.RESYNC, level.syncedTo());
            } else if (takeRequest() instanceof SyncAction action) {
                scrub(action, 0);
            } else {
                idle();
                LockSupport.park(this);
            }
        }
        status = SyncStatus.IDLE;
    }

    /** Publishes IDLE unless a request arrived meanwhile (its status must stay visible). */
    private synchronized void idle() {
        if (requested == null) {
            status = paused ? SyncStatus.IDLE.paused(true) : SyncStatus.IDLE;
        }
    }

    private synchronized SyncAction takeRequest() {
        SyncAction a = requested;
        requested = null;
        abortScrub = false;
        return a;
    }

    private void recover(Member target) {
        lastAction = SyncAction.RECOVER;
        changed.run();
        level.metadata().joinedSlot(target);
        long total = level.rebuildBytes();
        long pos = Math.min(target.rebuilt(), total);
        begin(pos);
        started(SyncAction.RECOVER, target, pos, total);
        MemorySegment buffer = buffers(1)[0];
        while (pos < total && proceed(SyncAction.RECOVER, pos, total, target)) {
            if (target.state() != MemberState.REBUILDING || members.lostReason() != null) {
                ended(SyncAction.RECOVER, target, false, pos, total);
                return;
            }
            long len = level.rebuildWindow(target, pos);
            Redundancy.Recovered r = level.rebuild(target, pos, len, buffer);
            if (r != Redundancy.Recovered.COPIED && r != Redundancy.Recovered.SKIPPED) {
                ended(SyncAction.RECOVER, target, false, pos, total);
                return;
            }
            long copied = r == Redundancy.Recovered.COPIED ? len : 0;
            recoveredBytes.addAndGet(copied);
            pos += len;
            progressed(SyncAction.RECOVER, pos, total, target, copied);
        }
        if (pos >= total) {
            members.rebuilt(target);
        }
        ended(SyncAction.RECOVER, target, pos >= total, pos, total);
        if (pos >= total) {
            changed.run();
        }
    }

    private void scrub(SyncAction action, long from) {
        lastAction = action;
        long total = level.sizeBytes();
        long pos = from;
        if (from == 0) {
            mismatches.set(0);
        }
        begin(pos);
        started(action, null, pos, total);
        MemorySegment[] bufs = buffers(level.scrubBuffers());
        while (pos < total && proceed(action, pos, total, null)) {
            boolean scrubAborted = abortScrub && action != SyncAction.RESYNC;
            if (scrubAborted || members.lostReason() != null) {
                ended(action, null, false, pos, total);
                return;
            }
            if (action == SyncAction.RESYNC) {
                long next = Math.min(level.nextResync(pos), total);
                if (next > pos) {
                    pos = next;
                    level.syncedTo(pos);
                    progressed(action, pos, total, null, 0);
                    continue;
                }
            }
            long len = action == SyncAction.RESYNC ? level.resyncWindowAt(pos) : level.scrubWindowAt(pos);
            mismatches.addAndGet(level.scrub(pos, len, action != SyncAction.CHECK, bufs));
            if (action != SyncAction.CHECK) {
                level.windowSynced(pos, len);
            }
            pos += len;
            if (action == SyncAction.RESYNC) {
                level.syncedTo(pos);
            }
            progressed(action, pos, total, null, len);
        }
        if (pos >= total && action == SyncAction.RESYNC) {
            level.syncedTo(Long.MAX_VALUE);
        }
        ended(action, null, pos >= total, pos, total);
        if (pos >= total && action == SyncAction.RESYNC) {
            changed.run();
        }
    }

    /* ---- Events ---- */

    private void started(SyncAction action, Member target, long pos, long total) {
        lastProgressEvent = System.nanoTime();
        String t = target == null ? null : target.name();
        publish.accept(name -> new EngineEvent.SyncStarted(name, action.label(), t, pos, total));
    }

    private void ended(SyncAction action, Member target, boolean completed, long pos, long total) {
        String t = target == null ? null : target.name();
        long mismatched = mismatches.get();
        publish.accept(name -> new EngineEvent.SyncEnded(name, action.label(), t, completed, pos, total,
                action == SyncAction.RECOVER ? 0 : mismatched));
    }

    /** Tells the listener how far the action is: at most once a second, unless {@code now} is forced. */
    private void progressEvent(SyncStatus s, boolean force) {
        long now = System.nanoTime();
        if (!force && now - lastProgressEvent < MARK_STEP) {
            return;
        }
        lastProgressEvent = now;
        publish.accept(name -> new EngineEvent.SyncProgress(name, s.action().label(), s.target(), s.doneBytes(),
                s.totalBytes(), s.speedKiBps(), s.etaSeconds(), s.paused()));
    }

    /** Waits out a pause; false if the daemon is stopping. */
    private boolean proceed(SyncAction action, long pos, long total, Member target) {
        boolean announced = false;
        while (paused && !stopping) {
            status = new SyncStatus(action, true, pos, total, 0, -1, target == null ? null : target.name());
            if (!announced) {
                progressEvent(status, true);
                announced = true;
            }
            LockSupport.park(this);
            begin(pos);
        }
        return !stopping;
    }

    private MemorySegment[] buffers(int n) {
        if (buffers == null || buffers.length < n) {
            buffers = new MemorySegment[n];
            for (int i = 0; i < n; i++) {
                buffers[i] = MemorySegment.ofArray(new byte[(int) Mirrored.WINDOW]);
            }
        }
        return buffers;
    }

    /* ---- Progress and pacing ---- */

    private void begin(long pos) {
        long now = System.nanoTime();
        for (int i = 0; i < MARKS; i++) {
            markTime[i] = now;
            markDone[i] = pos;
        }
        lastMark = 0;
        lastUserIo = userIo.getAsLong();
        paceRate = 0;
        checkpointNanos = now;
        checkpointPos = pos;
    }

    private void progressed(SyncAction action, long pos, long total, Member target, long len) {
        long now = System.nanoTime();
        if (now - markTime[lastMark] >= MARK_STEP) {
            lastMark = (lastMark + 1) % MARKS;
            markTime[lastMark] = now;
            markDone[lastMark] = pos;
        }
        int oldest = (lastMark + 1) % MARKS;
        // at least a second, as md's status_resync counts it: the first windows after a start
        // would otherwise divide by microseconds and report a speed no disk has
        long dt = Math.max(MARK_STEP, now - markTime[oldest]);
        long speed = (long) ((pos - markDone[oldest]) / 1024.0 / (dt / 1e9));
        long eta = speed > 0 ? (total - pos) / 1024 / speed : -1;
        status = new SyncStatus(action, false, pos, total, speed, eta, target == null ? null : target.name());
        if (now - checkpointNanos >= CHECKPOINT_NANOS || pos - checkpointPos >= total / 16) {
            level.metadata().checkpoint();
            checkpointNanos = System.nanoTime();
            checkpointPos = pos;
        }
        progressEvent(status, false);
        pace(len, now);
    }

    /** Sleeps as long as the current speed limit requires for the bytes done since the pace began. */
    private void pace(long len, long now) {
        long io = userIo.getAsLong();
        boolean busy = io != lastUserIo;
        lastUserIo = io;
        SpeedLimits l = limits;
        long rate = busy ? l.minKiBps() : l.maxKiBps();
        if (rate != paceRate) {
            paceRate = rate;
            paceStart = now;
            paceBytes = 0;
        }
        paceBytes += len;
        long due = paceStart + (long) (paceBytes / 1024.0 / rate * 1e9);
        long wait;
        while (!stopping && !paused && limits == l && (wait = due - System.nanoTime()) > 0) {
            LockSupport.parkNanos(this, wait);
        }
    }
}
