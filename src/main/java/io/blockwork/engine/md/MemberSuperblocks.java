package io.blockwork.engine.md;

import io.blockwork.engine.md.metadata.BitmapSuperblock;
import io.blockwork.engine.md.metadata.MemberLayout;
import io.blockwork.engine.md.metadata.MetadataSpec;
import io.blockwork.engine.md.metadata.Superblock;
import io.blockwork.engine.md.metadata.WriteIntentBitmap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An array's v1.2 superblocks and write-intent bitmap: the one writer of md metadata on its
 * members, ordering its updates against the data the way md_update_sb, md_write_start and the
 * bitmap do.
 *
 * <p>Design note. What is written when, and why a crash at any point is safe:
 * <ul>
 *   <li><b>Every change of the members</b> (a failure, a spare taken into a slot, a rebuild or
 *       the resync finished, an add or remove) is one <em>round</em>: the event count goes up, the
 *       bitmap superblock records it, then every member that is not faulty gets its superblock,
 *       PREFLUSH|FUA. A member whose superblock write fails is failed and the round repeats.
 *   <li><b>A member failure is recorded before anyone relies on it.</b> {@link MemberSet} counts
 *       failures before publishing the table without the failed member; while the count is ahead
 *       of what a round has recorded, new writes wait ({@link #startWrite}, md_write_start's wait
 *       for MD_SB_CHANGE_PENDING) and a write that saw a member fail completes only after the
 *       round ({@link #afterFailuresRecorded}). So an acknowledged write that the failed member
 *       missed always has survivors whose superblocks say it failed, with a higher event count;
 *       assembly then takes the member's role from the freshest superblock and rebuilds it.
 *   <li><b>Clean and active.</b> The first write after the array was clean waits for a round
 *       that records it active ({@code resync_offset} 0); {@link #SAFE_MODE} after the last write
 *       ended, a round records it clean again. A crash while active means copies may differ where
 *       writes were in flight: assembly resyncs, only the bitmap's dirty chunks when there is one.
 *   <li><b>The bitmap</b> sets a chunk's bit durably before a write to it starts, and clears it
 *       lazily ({@link WriteIntentBitmap}); this thread runs its daemon every daemon_sleep.
 *   <li><b>Checkpoints</b>: the sync daemon asks for a round now and then, so a member's
 *       {@code recovery_offset} and the array's {@code resync_offset} move on; PREFLUSH makes the
 *       data they cover durable before the superblock saying so.
 * </ul>
 *
 * <p>Size note: over 400 lines because the rounds, the clean/active state, the held writes and the bitmap's
 * store all order against each other through one lock and one thread; apart they would need a
 * protocol between them. What the superblocks and the bitmap pages say and the member writes that
 * put them there are {@link SuperblockWrites}'.
 *
 * <p>Threading: rounds, the clean transition and the bitmap daemon run on one virtual thread per
 * array, which blocks on its member I/O; the I/O path only bumps counters, queues runnables and
 * unparks it. {@link #lock} guards the queues, the state changes and the round bookkeeping;
 * nothing under it blocks. Events are written only by the thread.
 */
final class MemberSuperblocks implements ArrayMetadata {

    /** md's safe_mode_delay: an array with no write for this long is recorded clean. */
    static final Duration SAFE_MODE = Duration.ofMillis(200);
    private static final long SAFE_MODE_NANOS = SAFE_MODE.toNanos();
    private static final System.Logger LOG = System.getLogger(MemberSuperblocks.class.getName());

    /**
     * How an array's superblocks start.
     *
     * @param setName the superblock's {@code set_name}
     * @param ctime creation time, md's packed form
     * @param dataOffset where joining members' data starts (bytes): the array's data offset
     * @param events the event count found on the members (0 for a new array)
     * @param clean the array starts clean
     * @param bitmap the bitmap read from a member; null for a new one (made from the spec) or none
     * @param bits its bits
     * @param neededFrom the first sync byte whose set bits must be resynced
     * @param maxDev the dev_roles entries found (0 for a new array)
     */
    record Setup(String setName, long ctime, long dataOffset, long events, boolean clean, BitmapSuperblock bitmap,
                 byte[] bits, long neededFrom, int maxDev) {}

    private enum State { CLEAN, ACTIVE, CLEANING }

    private record Held(long failures, Runnable then) {}

    private final String arrayName;
    private final MemberSet members;
    /** False for levels without redundancy, which never go active and have no bitmap. */
    private final boolean redundant;
    /** The superblocks' and the bitmap's contents and their writes to the members. */
    private final SuperblockWrites writes;
    private final WriteIntentBitmap bitmap;
    private final Thread thread;

    private final Object lock = new Object();
    /** Written by the thread under {@link #lock}. */
    private volatile long events;
    private volatile State state;
    /** Writes between startWrite and endWrite. */
    private final AtomicLong writing = new AtomicLong();
    private volatile long lastWriteEnd = System.nanoTime() - SAFE_MODE_NANOS;
    /** Member failures the last round recorded (compared with {@link MemberSet#failures()}). */
    private volatile long recordedFailures;
    /** Guarded by {@link #lock}: member changes the last round recorded. */
    private long recordedChanges;
    /** Guarded by {@link #lock}: a write waits for a round that records the array active. */
    private boolean activeWanted;
    /** Guarded by {@link #lock}: writes waiting for the array to be recorded active and failures recorded. */
    private final List<Runnable> gated = new ArrayList<>();
    /** Guarded by {@link #lock}: completions waiting for failures to be recorded. */
    private final List<Held> held = new ArrayList<>();
    /** Guarded by {@link #lock}: rounds asked for by {@link #checkpoint}, and the number done. */
    private long roundsWanted;
    private long roundsDone;
    /** Guarded by {@link #lock}: the dev_roles entries the superblocks carry (never shrinks). */
    private int maxDev;
    private volatile boolean stopping;
    /** Stop without the clean round: what a process kill leaves behind (tests). */
    private volatile boolean killed;
    private volatile boolean stopped;

    /**
     * @param events the event count found at assembly (0 for a new array)
     * @param clean whether the array starts clean
     * @param bitmapSuper the bitmap's superblock, or null for none
     * @param bits the bitmap's bits as read (or fresh)
     * @param neededFrom the first sync byte whose set bits must be resynced ({@link WriteIntentBitmap})
     */
    MemberSuperblocks(String arrayName, SuperblockWrites.Identity id, MemberSet members, Personality personality,
                      MemberLayout layout, long events, boolean clean, BitmapSuperblock bitmapSuper, byte[] bits,
                      long neededFrom, int maxDev) {
        this.arrayName = arrayName;
        this.members = members;
        this.redundant = personality.level().redundant();
        this.writes = new SuperblockWrites(id, members, personality, layout, bitmapSuper != null);
        this.events = events;
        this.state = clean || !redundant ? State.CLEAN : State.ACTIVE;
        this.maxDev = maxDev;
        this.recordedFailures = members.failures();
        this.recordedChanges = members.changes();
        this.bitmap = bitmapSuper == null ? null : new WriteIntentBitmap(bitmapSuper, bits, neededFrom,
                writes::writeBitmap, () -> members.degraded() > 0, () -> this.events);
        this.thread = Thread.ofVirtual().name("md-" + arrayName + "-metadata").unstarted(this::run);
    }

    /** The writer of {@code spec}'s superblocks, with a new bitmap made from the spec when the setup brings none. */
    static MemberSuperblocks of(MdArraySpec spec, MemberSet members, Personality personality, Setup setup) {
        MetadataSpec m = spec.metadata();
        long used = personality.usedMemberBytes() >>> 9;
        BitmapSuperblock bitmap = setup.bitmap();
        byte[] bits = setup.bits();
        long neededFrom = setup.neededFrom();
        if (bitmap == null && m.bitmap() != null) {
            bitmap = newBitmap(m, personality.syncBytes() >>> 9, used, setup.dataOffset());
            bits = new byte[(int) ((bitmap.bits() + 7) / 8)];
            if (!setup.clean()) {
                Arrays.fill(bits, (byte) 0xff);
            }
            neededFrom = setup.clean() ? Long.MAX_VALUE : 0;
        }
        long bitmapSectors = bitmap == null ? MemberLayout.bitmapSpace(used)
                : BitmapSuperblock.areaBytes(bitmap.bits(), 4096) >>> 9;
        SuperblockWrites.Identity id = new SuperblockWrites.Identity(m.uuid(), setup.setName(), setup.ctime(), spec.level().mdNumber(), personality.layoutCode(),
                spec.level() == MdLevel.RAID1 ? 0 : (int) (spec.chunkBytes() >>> 9), members.table().width(), used,
                MemberLayout.BITMAP_OFFSET);
        return new MemberSuperblocks(spec.name(), id, members, personality,
                MemberLayout.of(setup.dataOffset() >>> 9, bitmapSectors), setup.events(), setup.clean(), bitmap, bits,
                neededFrom, setup.maxDev());
    }

    /** A new bitmap over {@code syncSectors}, its chunk checked against mdadm's room and the data offset. */
    private static BitmapSuperblock newBitmap(MetadataSpec m, long syncSectors, long usedSectors, long dataOffsetBytes) {
        long smallest = MemberLayout.smallestBitmapChunk(syncSectors, usedSectors);
        long chunk = m.bitmap().chunkBytes() == 0 ? MemberLayout.defaultBitmapChunk(syncSectors, usedSectors)
                : m.bitmap().chunkBytes();
        if (smallest == 0) {
            throw new MdArgumentException("bitmap", "the members are too small for a write-intent bitmap");
        }
        if (chunk < smallest) {
            throw new MdArgumentException("bitmapChunk", "a bitmap chunk of " + chunk + " bytes needs more bits than mdadm's"
                    + " room for this array holds; the smallest is " + smallest + " bytes");
        }
        long area = BitmapSuperblock.areaBytes(BitmapSuperblock.bits(syncSectors, chunk), 4096);
        long room = dataOffsetBytes - (Superblock.V12_SUPER_OFFSET + MemberLayout.BITMAP_OFFSET) * 512;
        if (area > room) {
            throw new MdArgumentException("bitmapChunk", "the bitmap (" + area + " bytes) does not fit before the data ("
                    + room + " bytes of room); choose a larger chunk");
        }
        return new BitmapSuperblock(BitmapSuperblock.VERSION, m.uuid(), 0, 0, syncSectors, 0, (int) chunk,
                m.bitmap().daemonSleepSeconds(), 0, (int) (area >>> 9));
    }

    /** Writes the first round (and, with a bitmap, its whole area to every slot member), then starts the thread. */
    void start() {
        if (bitmap != null) {
            bitmap.rewriteAll();
        }
        round(state == State.ACTIVE);
        thread.start();
    }

    /* ---- The I/O path ---- */

    @Override
    public void startWrite(long offset, long length, Runnable proceed) {
        if (!redundant) {
            proceed.run();
            return;
        }
        writing.incrementAndGet();
        // read after the increment, so a clean transition either sees this write or is seen by it
        if (state == State.ACTIVE && !failurePending()) {
            markBits(offset, length, proceed);
            return;
        }
        boolean go;
        synchronized (lock) {
            go = (state == State.ACTIVE && !failurePending()) || (stopped && !killed);
            if (!go) {
                gated.add(() -> markBits(offset, length, proceed));
                activeWanted |= state != State.ACTIVE;
            }
        }
        if (go) {
            markBits(offset, length, proceed);
        } else {
            LockSupport.unpark(thread);
        }
    }

    private void markBits(long offset, long length, Runnable proceed) {
        if (bitmap == null) {
            proceed.run();
        } else {
            bitmap.startWrite(offset, length, proceed);
        }
    }

    @Override
    public void endWrite(long offset, long length, boolean everyCopy) {
        if (!redundant) {
            return;
        }
        if (bitmap != null) {
            bitmap.endWrite(offset, length, everyCopy);
        }
        lastWriteEnd = System.nanoTime();
        writing.decrementAndGet();
    }

    @Override
    public boolean failurePending() {
        return members.failures() != recordedFailures;
    }

    @Override
    public void afterFailuresRecorded(Runnable then) {
        if (!failurePending()) {
            then.run();
            return;
        }
        boolean now;
        synchronized (lock) {
            now = !failurePending() || (stopped && !killed);
            if (!now) {
                held.add(new Held(members.failures(), then));
            }
        }
        if (now) {
            then.run();
        } else {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public WriteIntentBitmap bitmap() {
        return bitmap;
    }

    @Override
    public long events() {
        return events;
    }

    /** Something changed (a member, a request): look for work. */
    void wake() {
        LockSupport.unpark(thread);
    }

    /** True while the superblocks say the array is active (written to), as mdadm's "State : active". */
    boolean active() {
        return state != State.CLEAN;
    }

    /* ---- The daemon's side ---- */

    @Override
    public void checkpoint() {
        synchronized (lock) {
            long ticket = ++roundsWanted;
            LockSupport.unpark(thread);
            while (roundsDone < ticket && !stopped) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public void joinedSlot(Member m) {
        if (bitmap != null) {
            bitmap.rewriteAll();
        }
        checkpoint();
    }

    /** Stops the thread at once, writing nothing more: the members are left as a crash would leave them. */
    void kill() {
        killed = true;
        stop();
    }

    @Override
    public void stop() {
        stopping = true;
        LockSupport.unpark(thread);
        try {
            if (!thread.join(Duration.ofSeconds(30))) {
                LOG.log(System.Logger.Level.WARNING, "md " + arrayName + ": metadata thread did not stop in 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IllegalThreadStateException e) {
            // never started: nothing to stop
        }
    }

    /* ---- The thread ---- */

    private void run() {
        long nextDaemon = System.nanoTime() + daemonNanos();
        try {
            while (true) {
                boolean roundDue;
                synchronized (lock) {
                    roundDue = members.changes() != recordedChanges || failurePending() || activeWanted
                            || roundsWanted > roundsDone;
                }
                long now = System.nanoTime();
                if (killed) {
                    return;
                }
                if (roundDue) {
                    boolean active;
                    synchronized (lock) {
                        active = activeWanted || state == State.ACTIVE;
                    }
                    round(active);
                } else if (stopping) {
                    finish();
                    return;
                } else if (state == State.ACTIVE && writing.get() == 0 && now - lastWriteEnd >= SAFE_MODE_NANOS) {
                    tryClean();
                } else if (bitmap != null && now - nextDaemon >= 0) {
                    bitmap.daemonPass();
                    nextDaemon = System.nanoTime() + daemonNanos();
                } else {
                    long wait = bitmap != null ? nextDaemon - now : Long.MAX_VALUE;
                    if (state == State.ACTIVE) {
                        wait = Math.min(wait, Math.max(1, lastWriteEnd + SAFE_MODE_NANOS - now));
                    }
                    if (wait == Long.MAX_VALUE) {
                        LockSupport.park(this);
                    } else {
                        LockSupport.parkNanos(this, wait);
                    }
                }
            }
        } finally {
            List<Runnable> left = new ArrayList<>();
            synchronized (lock) {
                stopped = true;
                if (!killed) {
                    // a stopped array records nothing more: what still waits goes ahead (a killed one's never does)
                    left.addAll(gated);
                    gated.clear();
                    held.forEach(h -> left.add(h.then()));
                    held.clear();
                }
                lock.notifyAll();
            }
            left.forEach(Runnable::run);
        }
    }

    private long daemonNanos() {
        return bitmap == null ? Long.MAX_VALUE / 4 : TimeUnit.SECONDS.toNanos(bitmap.daemonSleepSeconds());
    }

    /** md's set_in_sync: records the array clean unless a write slipped in. */
    private void tryClean() {
        synchronized (lock) {
            if (activeWanted || !gated.isEmpty()) {
                return;
            }
            state = State.CLEANING;
            if (writing.get() != 0) {
                state = State.ACTIVE;
                return;
            }
        }
        round(false);
    }

    /**
     * A clean stop: waits for writes in flight (bounded; writes still waiting for a round get it),
     * clears idle bits, records the array clean.
     */
    private void finish() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (writing.get() != 0 && System.nanoTime() - deadline < 0) {
            boolean due;
            synchronized (lock) {
                due = activeWanted || !gated.isEmpty() || !held.isEmpty() || failurePending();
            }
            if (due) {
                round(true);
            } else {
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
        boolean idle = writing.get() == 0;
        if (bitmap != null && idle) {
            bitmap.flushIdle();
        }
        round(!idle);
    }

    /**
     * One superblock round (md_update_sb), recording the array {@code active} or clean and the
     * members as they are now. Releases the writes and completions it makes safe.
     */
    private void round(boolean active) {
        long failures;
        long changes;
        long wanted;
        synchronized (lock) {
            failures = members.failures();
            changes = members.changes();
            wanted = roundsWanted;
            if (active) {
                activeWanted = false;
            }
        }
        writeRound(active);
        List<Runnable> ready = new ArrayList<>();
        synchronized (lock) {
            recordedFailures = failures;
            recordedChanges = changes;
            roundsDone = Math.max(roundsDone, wanted);
            state = active ? State.ACTIVE : activeWanted ? State.CLEANING : State.CLEAN;
            if (state == State.ACTIVE && !failurePending()) {
                ready.addAll(gated);
                gated.clear();
            }
            held.removeIf(h -> {
                if (h.failures() <= recordedFailures) {
                    ready.add(h.then());
                    return true;
                }
                return false;
            });
            lock.notifyAll();
        }
        for (Runnable r : ready) {
            r.run();
        }
    }

    private void writeRound(boolean active) {
        List<Member> attached = members.all();
        List<Integer> roles;
        long ev;
        synchronized (lock) {
            int highest = attached.stream().mapToInt(Member::number).max().orElse(0);
            maxDev = Math.max(maxDev, Superblock.maxDevFor(highest + 1));
            roles = new ArrayList<>(Collections.nCopies(maxDev, Superblock.ROLE_SPARE));
            ev = ++events;
        }
        List<Member> targets = SuperblockWrites.roles(attached, roles);
        long resyncOffset = writes.resyncOffsetSectors(active);
        if (bitmap != null) {
            CountDownLatch done = new CountDownLatch(1);
            bitmap.updateEvents(ev, done::countDown);
            await(done);
        }
        writes.superblocks(targets, ev, resyncOffset, roles);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
