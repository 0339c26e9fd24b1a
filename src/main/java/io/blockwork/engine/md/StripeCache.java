package io.blockwork.engine.md;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * md's stripe cache ({@code stripe_cache_size}): at most {@link #capacity()} {@link StripeHead}s,
 * found by key (the head's index on the members). A head in use (requests attached, an operation
 * running) stays; an idle one keeps its pages, so a later read or read-modify-write of the same
 * stripe finds them, until the least recently used idle head makes room for a new one.
 *
 * <p>When every head is in use, md makes the submitter sleep until one is free. A Blockwork
 * submitter must not block, so its request is parked here instead and attached, in arrival order,
 * when a head is released. The sync daemon, which may block, waits for a head.
 *
 * <p>Locking: {@link #lock} guards the map, the idle list, the parked requests and each head's
 * {@code refs}. It is never held while a head's own lock is, nor the other way round.
 */
final class StripeCache {

    /** md's default stripe_cache_size. */
    static final int DEFAULT_SIZE = 256;
    static final int MIN_SIZE = 16;
    static final int MAX_SIZE = 32768;

    private record Parked(long key, StripeHead.Req req) {}

    private final Raid5 level;
    /**
     * Pages of evicted heads, reused by new ones (md allocates its stripe pages once): a random
     * write then costs no fresh allocation. Lock-free, since heads take pages under their own lock.
     */
    private final ConcurrentLinkedQueue<MemorySegment> freePages = new ConcurrentLinkedQueue<>();
    /** Pages in {@link #freePages} (roughly: kept apart because the queue's size() walks it). */
    private final AtomicInteger freeCount = new AtomicInteger();
    private final Object lock = new Object();
    /** Guarded by lock. */
    private final Map<Long, StripeHead> heads = new HashMap<>();
    /** Guarded by lock: heads with no reference, least recently used first. */
    private final LinkedHashSet<StripeHead> idle = new LinkedHashSet<>();
    /** Guarded by lock. */
    private final ArrayDeque<Parked> parked = new ArrayDeque<>();
    /** Guarded by lock. */
    private int capacity;

    StripeCache(Raid5 level, int capacity) {
        this.level = level;
        this.capacity = check(capacity);
    }

    static int check(int size) {
        if (size < MIN_SIZE || size > MAX_SIZE) {
            throw new MdArgumentException("stripeCacheSize", "must be " + MIN_SIZE + ".." + MAX_SIZE + " stripes, got " + size);
        }
        return size;
    }

    int capacity() {
        synchronized (lock) {
            return capacity;
        }
    }

    /** Heads in use (md's stripe_cache_active). */
    int active() {
        synchronized (lock) {
            return heads.size() - idle.size();
        }
    }

    void capacity(int size) {
        List<Parked> ready;
        synchronized (lock) {
            capacity = check(size);
            while (heads.size() > capacity && !idle.isEmpty()) {
                evictEldest();
            }
            ready = unpark();
            lock.notifyAll();
        }
        dispatch(ready);
    }

    /**
     * Attaches {@code req} to the head of {@code key}, taking a reference; returns the head (the
     * caller schedules it), or null if the request was parked until a head is free.
     */
    StripeHead attach(long key, StripeHead.Req req) {
        StripeHead h;
        synchronized (lock) {
            h = parked.isEmpty() ? acquire(key) : null;
            if (h == null) {
                parked.add(new Parked(key, req));
                return null;
            }
        }
        h.add(req);
        return h;
    }

    /** Starts a sync operation on the head of {@code key}, waiting for a free head if need be. */
    StripeHead.SyncOp sync(long key, Member target, boolean fix) {
        StripeHead h;
        synchronized (lock) {
            while ((h = acquire(key)) == null) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for a stripe head", e);
                }
            }
        }
        StripeHead.SyncOp op = new StripeHead.SyncOp(target, fix);
        h.requestSync(op);
        h.schedule();
        return op;
    }

    /** Caller holds lock. A head with one more reference, or null if the cache is full of heads in use. */
    private StripeHead acquire(long key) {
        StripeHead h = heads.get(key);
        if (h == null) {
            if (heads.size() >= capacity) {
                if (idle.isEmpty()) {
                    return null;
                }
                evictEldest();
            }
            h = new StripeHead(level, key);
            heads.put(key, h);
        } else if (h.refs == 0) {
            idle.remove(h);
        }
        h.refs++;
        return h;
    }

    /**
     * Caller holds lock. The eldest idle head goes; its pages are pooled (it is idle: its last
     * operation's writes to them happened before the release that made it idle, under this lock).
     */
    private void evictEldest() {
        StripeHead eldest = idle.removeFirst();
        heads.remove(eldest.key);
        if (freeCount.get() < capacity * 2) {
            freeCount.addAndGet(eldest.givePages(freePages));
        }
    }

    /** A page for a head: a pooled one (its old bytes are never read: validity says so) or a new one. */
    MemorySegment page() {
        MemorySegment p = freePages.poll();
        if (p == null) {
            return MemorySegment.ofArray(new byte[level.stripeBytes]);
        }
        freeCount.decrementAndGet();
        return p;
    }

    /** Drops {@code n} references taken by {@link #attach} or {@link #sync}; may attach parked requests. */
    void release(StripeHead h, int n) {
        List<Parked> ready;
        synchronized (lock) {
            h.refs -= n;
            if (h.refs == 0) {
                idle.add(h);
                if (heads.size() > capacity) {
                    evictEldest();
                }
                lock.notifyAll();
            }
            ready = unpark();
        }
        dispatch(ready);
    }

    /** Caller holds lock: the parked requests that now get a head, in order, each with its reference taken. */
    private List<Parked> unpark() {
        List<Parked> ready = List.of();
        while (!parked.isEmpty()) {
            Parked p = parked.peekFirst();
            StripeHead h = acquire(p.key());
            if (h == null) {
                break;
            }
            parked.pollFirst();
            if (ready.isEmpty()) {
                ready = new ArrayList<>();
            }
            ready.add(new Parked(p.key(), p.req()));
        }
        return ready;
    }

    private void dispatch(List<Parked> ready) {
        for (Parked p : ready) {
            StripeHead h;
            synchronized (lock) {
                h = heads.get(p.key());
            }
            h.add(p.req());
            h.schedule();
        }
    }
}
