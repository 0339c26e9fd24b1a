package io.blockwork.engine.md.metadata;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * md's internal write-intent bitmap (md-bitmap.c), for any redundant level: one bit per chunk of
 * the level's sync range, set and durable on the members before a write to that chunk starts,
 * cleared lazily once the chunk has been idle for a while. After an unclean shutdown only chunks
 * whose bit is set can differ between copies; a member that was briefly out needs only the chunks
 * written since it left.
 *
 * <p>Design note. Each chunk has md's 16-bit counter, kept here in an int: the low bits count
 * writes in flight plus 2 while the bit is set, {@link #NEEDED} says the chunk must be resynced
 * before its bit may clear (a write did not reach every copy, or the bit was found set at
 * assembly), {@link #RESYNC} that a sync of it is running. The life of a chunk:
 * <pre>
 *   0 (clean) --startWrite: set the bit--&gt; 3 --endWrite--&gt; 2 (dirty, idle)
 *   2 --daemon--&gt; 1 --daemon--&gt; 0, bit cleared      any startWrite on the way goes back to 3+
 * </pre>
 * so a bit clears one to two daemon periods after the chunk's last write ended, as in md.
 *
 * <p>Durability without blocking the I/O path. Setting a bit bumps a generation and remembers it
 * for the chunk ({@link #bitGeneration}); a write proceeds once the bitmap's durable generation has
 * reached its chunks' generations, i.e. when a write-out that started after its bits were set has
 * completed. Write-outs are group commits: one at a time, each writing every dirty page (4 KiB of
 * the on-disk area) to the members through the {@link Store} with FUA, and releasing every writer
 * it covers. A write that finds its bits set and durable costs one lock and no I/O. Cleared bits
 * ride on the same write-outs, with PREFLUSH so the data they stood for is durable first.
 *
 * <p>Size note: over 400 lines because the counters, the on-disk image, the generations and the write-out
 * queue change together under one lock; split, each would need the others' invariants.
 *
 * <p>Locking: {@link #lock} guards the counters, the on-disk image, the dirty pages, the
 * generations and the waiters; nothing under it blocks or submits I/O, so it may be taken from
 * I/O completions. Waiters and the store are called outside it.
 */
public final class WriteIntentBitmap {

    /** Where the bitmap area lives: the array writes a page of it to every member holding a slot. */
    public interface Store {
        /**
         * Writes {@code data} at byte {@code areaOffset} of the bitmap area on the members, FUA (and
         * PREFLUSH when {@code preflush}), and runs {@code done} once every member has answered.
         */
        void write(long areaOffset, byte[] data, boolean preflush, Runnable done);
    }

    static final int NEEDED = 1 << 30;
    static final int RESYNC = 1 << 29;
    private static final int COUNT = RESYNC - 1;
    private static final int PAGE = 4096;

    private final Store store;
    private final long chunkBytes;
    private final int chunkShift;
    private final long syncBytes;
    private final int chunks;
    private final int daemonSleepSeconds;
    /** Whether some slot lacks an in-sync member (md's mddev->degraded): events_cleared then stays. */
    private final BooleanSupplier degraded;
    /** The array's event count, for events_cleared. */
    private final LongSupplier events;

    private final Object lock = new Object();
    /** Guarded by {@link #lock}: md's bitmap counters. */
    private final int[] counters;
    /** Guarded by {@link #lock}: generation at which each chunk's bit was last set. */
    private final long[] bitGeneration;
    /** Guarded by {@link #lock}: the on-disk area (superblock, then the bits). */
    private final byte[] image;
    /** Guarded by {@link #lock}. */
    private final boolean[] dirtyPages;
    /** Guarded by {@link #lock}: the dirty pages include cleared bits. */
    private boolean clearsPending;
    /** Guarded by {@link #lock}: bumped whenever the image changes. */
    private long generation;
    /** Guarded by {@link #lock}: every change up to this generation is on the members. */
    private long durable;
    /** Guarded by {@link #lock}: a write-out is in flight. */
    private boolean writing;
    /** Guarded by {@link #lock}: the thread inside {@link #writeOut}, so an inline completion loops instead of recursing. */
    private Thread submitter;
    /** Guarded by {@link #lock}: {@link #writeOut} must go round once more. */
    private boolean rerun;
    /** Guarded by {@link #lock}: writers and others waiting for a generation to become durable. */
    private final List<Waiter> waiters = new ArrayList<>();
    /** Guarded by {@link #lock}. */
    private BitmapSuperblock superblock;
    /** Guarded by {@link #lock}: events_cleared the next write-out must record before bits clear (md's need_sync). */
    private long pendingEventsCleared;

    private record Waiter(long generation, Runnable then) {}

    /**
     * A bitmap as {@code superblock} describes it, with {@code bits} ({@code (chunks + 7) / 8}
     * bytes, little-endian bit order) as read from a member or fresh. Every set bit starts dirty
     * and idle; those of chunks from byte {@code neededFrom} on must also be resynced first (md's
     * md_bitmap_init_from_disk: from 0 when the array was not clean or is degraded at assembly,
     * from the resync offset when a clean array's resync was unfinished, never otherwise).
     */
    public WriteIntentBitmap(BitmapSuperblock superblock, byte[] bits, long neededFrom, Store store,
                             BooleanSupplier degraded, LongSupplier events) {
        this.store = store;
        this.superblock = superblock;
        this.chunkBytes = superblock.chunkBytes();
        this.chunkShift = Long.numberOfTrailingZeros(chunkBytes);
        this.syncBytes = superblock.syncSectors() * 512;
        this.chunks = Math.toIntExact(superblock.bits());
        this.daemonSleepSeconds = superblock.daemonSleepSeconds();
        this.degraded = degraded;
        this.events = events;
        this.counters = new int[chunks];
        this.bitGeneration = new long[chunks];
        this.image = new byte[Math.toIntExact(BitmapSuperblock.areaBytes(chunks, PAGE))];
        this.dirtyPages = new boolean[image.length / PAGE];
        this.pendingEventsCleared = superblock.eventsCleared();
        superblock.encode(image, 0);
        System.arraycopy(bits, 0, image, BitmapSuperblock.SIZE, Math.min(bits.length, (chunks + 7) / 8));
        for (int c = 0; c < chunks; c++) {
            if (bit(c)) {
                counters[c] = 2 | (((long) c << chunkShift) + chunkBytes >= neededFrom ? NEEDED : 0);
            }
        }
    }

    /* ---- Geometry ---- */

    public long chunkBytes() {
        return chunkBytes;
    }

    public int chunks() {
        return chunks;
    }

    public int daemonSleepSeconds() {
        return daemonSleepSeconds;
    }

    /** Bytes of the on-disk area (superblock and bits, rounded to 4 KiB). */
    public int areaBytes() {
        return image.length;
    }

    private int firstChunk(long offset) {
        return (int) (offset >>> chunkShift);
    }

    private int lastChunk(long offset, long length) {
        return (int) ((Math.min(offset + length, syncBytes) - 1) >>> chunkShift);
    }

    /* ---- The write path ---- */

    /**
     * A write to {@code [offset, offset+length)} of the sync range is about to start: its chunks'
     * bits are set, and {@code proceed} runs once they are durable on the members, at once when
     * they already were (on this thread), else on the completion of a bitmap write-out.
     */
    public void startWrite(long offset, long length, Runnable proceed) {
        boolean now;
        boolean start = false;
        synchronized (lock) {
            long need = 0;
            for (int c = firstChunk(offset), last = lastChunk(offset, length); c <= last; c++) {
                int v = counters[c];
                if ((v & COUNT) == 0) {
                    setBit(c);
                    bitGeneration[c] = generation;
                    v = (v & ~COUNT) | 2;
                } else if ((v & COUNT) == 1) {
                    v = (v & ~COUNT) | 2;
                }
                counters[c] = v + 1;
                need = Math.max(need, bitGeneration[c]);
            }
            now = need <= durable;
            if (!now) {
                waiters.add(new Waiter(need, proceed));
                start = !writing;
                writing = true;
            }
        }
        if (now) {
            proceed.run();
        } else if (start) {
            writeOut();
        }
    }

    /**
     * A write to {@code [offset, offset+length)} ended. {@code everyCopy} is false when some copy
     * was not written (a member failed, or a slot is empty): its chunks are then NEEDED, kept
     * dirty until a resync or recovery has made the copies agree.
     */
    public void endWrite(long offset, long length, boolean everyCopy) {
        synchronized (lock) {
            for (int c = firstChunk(offset), last = lastChunk(offset, length); c <= last; c++) {
                int v = counters[c];
                if (!everyCopy) {
                    v |= NEEDED;
                }
                counters[c] = v - 1;
            }
            if (everyCopy && !degraded.getAsBoolean()) {
                pendingEventsCleared = Math.max(pendingEventsCleared, events.getAsLong());
            }
        }
    }

    /* ---- Resync and recovery ---- */

    /** True if some chunk of {@code [offset, offset+length)} must be resynced (or rebuilt through the bitmap). */
    public boolean needed(long offset, long length) {
        synchronized (lock) {
            for (int c = firstChunk(offset), last = lastChunk(offset, length); c <= last; c++) {
                if ((counters[c] & (NEEDED | RESYNC)) != 0) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * The copies of {@code [offset, offset+length)} agree now and every slot holds one: its
     * chunks' NEEDED flags go, and their bits clear after the usual idle time. Chunks only partly
     * inside the range keep their flags.
     */
    public void synced(long offset, long length) {
        synchronized (lock) {
            long end = Math.min(offset + length, syncBytes);
            int first = (int) ((offset + chunkBytes - 1) >>> chunkShift);
            int last = (int) ((end >>> chunkShift) - 1);
            if (end == syncBytes) {
                last = chunks - 1;
            }
            for (int c = first; c <= last; c++) {
                int v = counters[c] & ~(NEEDED | RESYNC);
                counters[c] = (v & COUNT) == 0 && bit(c) ? 2 : v;
            }
        }
    }

    /** Sets every bit and marks every chunk NEEDED: the whole range must be synced (a new array's first resync). */
    public void setAllNeeded(Runnable durableThen) {
        synchronized (lock) {
            for (int c = 0; c < chunks; c++) {
                setBit(c);
                counters[c] = Math.max(counters[c] & COUNT, 2) | NEEDED;
            }
        }
        flushThen(durableThen);
    }

    /** Byte offset of the first NEEDED chunk at or after {@code offset}, or -1. */
    public long nextNeeded(long offset) {
        synchronized (lock) {
            for (int c = firstChunk(offset); c < chunks; c++) {
                if ((counters[c] & (NEEDED | RESYNC)) != 0) {
                    return Math.max(offset, (long) c << chunkShift);
                }
            }
            return -1;
        }
    }

    /* ---- The daemon ---- */

    /**
     * One pass of md's bitmap daemon (md_bitmap_daemon_work), run every {@link #daemonSleepSeconds}:
     * idle dirty chunks count down, and those already counted down lose their bits. When bits clear for the first time since the event count moved, the
     * bitmap superblock's events_cleared is made durable first. A degraded array clears bits too:
     * chunks that did not reach every copy are NEEDED and never count down. Blocks until its
     * writes are done;
     * call it from a daemon thread.
     */
    public void daemonPass() {
        boolean superFirst;
        synchronized (lock) {
            superFirst = pendingEventsCleared > superblock.eventsCleared() && Arrays.stream(counters).anyMatch(v -> v == 1);
            if (superFirst) {
                setSuperblock(superblock.withEvents(superblock.events(), pendingEventsCleared));
            }
        }
        if (superFirst) {
            awaitDurable();
        }
        boolean changed = false;
        synchronized (lock) {
            boolean recorded = superblock.eventsCleared() >= pendingEventsCleared;
            for (int c = 0; c < chunks; c++) {
                int v = counters[c];
                if (v == 1 && recorded) {
                    counters[c] = 0;
                    clearBit(c);
                    changed = true;
                } else if (v == 2) {
                    counters[c] = 1;
                }
            }
        }
        if (changed) {
            awaitDurable();
        }
    }

    /**
     * Runs the daemon until nothing more can clear (md_bitmap_flush at a clean stop): idle
     * chunks lose their bits now instead of after their idle time.
     */
    public void flushIdle() {
        for (int i = 0; i < 3; i++) {
            daemonPass();
        }
    }

    /* ---- The bitmap superblock ---- */

    /**
     * Writes the whole area again to the members (a member joined a slot and must hold every bit),
     * through the same write-outs as every other change, so it cannot overtake a newer one.
     * Blocks until it is durable.
     */
    public void rewriteAll() {
        synchronized (lock) {
            Arrays.fill(dirtyPages, true);
            generation++;
        }
        awaitDurable();
    }

    /** Records the array's new event count in the bitmap superblock; {@code then} runs once it is durable. */
    public void updateEvents(long newEvents, Runnable then) {
        synchronized (lock) {
            setSuperblock(superblock.withEvents(newEvents, superblock.eventsCleared()));
        }
        flushThen(then);
    }

    public BitmapSuperblock superblock() {
        synchronized (lock) {
            return superblock;
        }
    }

    /** The whole on-disk area as it is now, for a member joining a slot. */
    public byte[] image() {
        synchronized (lock) {
            return image.clone();
        }
    }

    /* ---- Counts ---- */

    /** Chunks whose bit is set in memory. */
    public int dirtyChunks() {
        synchronized (lock) {
            int n = 0;
            for (int c = 0; c < chunks; c++) {
                n += bit(c) ? 1 : 0;
            }
            return n;
        }
    }

    /** Chunks a resync or a bitmap-based recovery would copy. */
    public int neededChunks() {
        synchronized (lock) {
            int n = 0;
            for (int v : counters) {
                n += (v & (NEEDED | RESYNC)) != 0 ? 1 : 0;
            }
            return n;
        }
    }

    /** mdstat's "pages": 4 KiB pages of md's 16-bit counters in use and in all. */
    public int[] counterPages() {
        int perPage = PAGE / 2;
        int total = (chunks + perPage - 1) / perPage;
        int used = 0;
        synchronized (lock) {
            for (int p = 0; p < total; p++) {
                for (int c = p * perPage; c < Math.min(chunks, (p + 1) * perPage); c++) {
                    if (counters[c] != 0) {
                        used++;
                        break;
                    }
                }
            }
        }
        return new int[] {used, total};
    }

    /* ---- Write-out ---- */

    /** Caller holds the lock. */
    private boolean bit(int c) {
        return (image[BitmapSuperblock.SIZE + (c >>> 3)] & (1 << (c & 7))) != 0;
    }

    /** Caller holds the lock. */
    private void setBit(int c) {
        int at = BitmapSuperblock.SIZE + (c >>> 3);
        if ((image[at] & (1 << (c & 7))) == 0) {
            image[at] |= (byte) (1 << (c & 7));
            changed(at);
        }
    }

    /** Caller holds the lock. */
    private void clearBit(int c) {
        int at = BitmapSuperblock.SIZE + (c >>> 3);
        image[at] &= (byte) ~(1 << (c & 7));
        changed(at);
        clearsPending = true;
    }

    /** Caller holds the lock. */
    private void setSuperblock(BitmapSuperblock sb) {
        superblock = sb;
        sb.encode(image, 0);
        changed(0);
    }

    /** Caller holds the lock. */
    private void changed(int at) {
        dirtyPages[at / PAGE] = true;
        generation++;
    }

    /** Makes everything changed so far durable, then runs {@code then} (on a completion thread or this one). */
    private void flushThen(Runnable then) {
        boolean now;
        boolean start = false;
        synchronized (lock) {
            now = generation <= durable;
            if (!now) {
                waiters.add(new Waiter(generation, then));
                start = !writing;
                writing = true;
            }
        }
        if (now) {
            then.run();
        } else if (start) {
            writeOut();
        }
    }

    private void awaitDurable() {
        CountDownLatch done = new CountDownLatch(1);
        flushThen(done::countDown);
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Write-outs until no waiter is left; the caller has set {@link #writing}. A write-out whose
     * pages complete inline (memory disks) asks this loop for the next one instead of recursing.
     */
    private void writeOut() {
        while (true) {
            List<Integer> pages = new ArrayList<>();
            List<byte[]> data = new ArrayList<>();
            long covers;
            boolean preflush;
            synchronized (lock) {
                covers = generation;
                preflush = clearsPending;
                clearsPending = false;
                for (int p = 0; p < dirtyPages.length; p++) {
                    if (dirtyPages[p]) {
                        dirtyPages[p] = false;
                        pages.add(p);
                        data.add(Arrays.copyOfRange(image, p * PAGE, (p + 1) * PAGE));
                    }
                }
                submitter = Thread.currentThread();
            }
            if (pages.isEmpty()) {
                written(covers);
            } else {
                AtomicInteger left = new AtomicInteger(pages.size());
                for (int i = 0; i < pages.size(); i++) {
                    store.write((long) pages.get(i) * PAGE, data.get(i), preflush, () -> {
                        if (left.decrementAndGet() == 0) {
                            written(covers);
                        }
                    });
                }
            }
            synchronized (lock) {
                if (submitter == Thread.currentThread()) {
                    submitter = null;
                }
                if (!rerun) {
                    return;
                }
                rerun = false;
            }
        }
    }

    /** A write-out covering changes up to {@code covers} is durable: release its waiters, start the next if due. */
    private void written(long covers) {
        List<Runnable> ready = new ArrayList<>();
        boolean again;
        synchronized (lock) {
            durable = Math.max(durable, covers);
            waiters.removeIf(w -> {
                if (w.generation <= durable) {
                    ready.add(w.then);
                    return true;
                }
                return false;
            });
            again = !waiters.isEmpty();
            writing = again;
            if (again && submitter == Thread.currentThread()) {
                rerun = true;
                again = false;
            }
        }
        for (Runnable r : ready) {
            r.run();
        }
        if (again) {
            writeOut();
        }
    }
}
