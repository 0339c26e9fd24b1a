package io.blockwork.engine.disk;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Extents;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Sparse RAM storage in 4 KiB pages ({@link PageTable}): memory grows with data written and
 * shrinks when ranges are discarded or zeroed.
 *
 * <p>Volatile cache model (writeback). The page table always holds what reads see: the cache.
 * For each page written since it was last made durable, {@link #durable} keeps the page's
 * durable content (or {@link #ABSENT}); its keys are the dirty set. A flush forgets those
 * entries, making the cache durable; a power cut writes them back. A page is restored whole, and
 * pages are at least as large as a logical block, so a power cut never tears a block.
 *
 * <p>Locking: in writeback mode every change to a page happens under its stripe lock, so that
 * saving the durable copy and changing the page are one step as far as a power cut is concerned.
 * A power cut takes all stripe locks, in index order. Reads and writethrough writes take none:
 * like a real disk, a read racing a write to the same block may see either.
 */
public final class MemoryMedium implements Medium {

    private static final int PAGE = PageTable.PAGE_SIZE;
    private static final int SHIFT = PageTable.PAGE_SHIFT;
    private static final byte[] ABSENT = new byte[0];
    private static final MemorySegment ZERO_PAGE = MemorySegment.ofArray(new byte[PAGE]);
    private static final int STRIPES = 64;

    private final long size;
    private final boolean writeback;
    private final PageTable pages;
    private final AtomicLong allocatedPages = new AtomicLong();
    /** Writeback only: durable content of each dirty page, keyed by page index. */
    private final Map<Long, byte[]> durable = new ConcurrentHashMap<>();
    /** Guard page changes in writeback mode; stripe = page index mod {@value #STRIPES}. */
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

    public MemoryMedium(long sizeBytes, CacheMode cache) {
        this.size = sizeBytes;
        this.writeback = cache == CacheMode.WRITEBACK;
        this.pages = new PageTable(sizeBytes);
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    @Override
    public long sizeBytes() {
        return size;
    }

    @Override
    public void read(long offset, MemorySegment into) {
        long len = into.byteSize();
        long done = 0;
        while (done < len) {
            long pos = offset + done;
            int in = (int) (pos & (PAGE - 1));
            int n = (int) Math.min(PAGE - in, len - done);
            byte[] page = pages.get(pos >>> SHIFT);
            if (page == null) {
                into.asSlice(done, n).fill((byte) 0);
            } else {
                MemorySegment.copy(page, in, into, JAVA_BYTE, done, n);
            }
            done += n;
        }
    }

    @Override
    public void write(long offset, MemorySegment from, boolean durableNow) {
        long len = from.byteSize();
        long done = 0;
        while (done < len) {
            long pos = offset + done;
            long index = pos >>> SHIFT;
            int in = (int) (pos & (PAGE - 1));
            int n = (int) Math.min(PAGE - in, len - done);
            // zeroes into a page never written change nothing: no page is allocated for them
            // (an md resync or a zeroing tool writes whole devices of zeroes)
            boolean zeroesIntoHole = pages.get(index) == null && isZero(from.asSlice(done, n));
            if (!writeback) {
                if (!zeroesIntoHole) {
                    MemorySegment.copy(from, JAVA_BYTE, done, pageForWrite(index), in, n);
                }
            } else {
                ReentrantLock stripe = stripe(index);
                stripe.lock();
                try {
                    if (durableNow) {
                        durable.remove(index);
                    } else {
                        rememberDurable(index, pages.get(index), true);
                    }
                    if (!zeroesIntoHole || pages.get(index) != null) {
                        MemorySegment.copy(from, JAVA_BYTE, done, pageForWrite(index), in, n);
                    }
                } finally {
                    stripe.unlock();
                }
            }
            done += n;
        }
    }

    /**
     * Present pages are data, absent ones holes: exact, since the page table is what reads see
     * (a page whose write completed is in the table; discarding or zeroing a whole page frees it).
     */
    @Override
    public void allocation(long offset, long length, Extents out) {
        long end = offset + length;
        long pos = offset;
        boolean present = pages.get(pos >>> SHIFT) != null;
        while (pos < end) {
            long lastPage = ((end - 1) >>> SHIFT) + 1;
            long next = pages.next((pos >>> SHIFT) + 1, lastPage, !present);
            long runEnd = Math.min(end, next << SHIFT);
            if (!out.add(runEnd - pos, present ? Allocation.DATA : Allocation.HOLE)) {
                return;
            }
            pos = runEnd;
            present = !present;
        }
    }

    @Override
    public void discard(long offset, long length) {
        zero(offset, length);
    }

    @Override
    public void writeZeroes(long offset, long length) {
        zero(offset, length);
    }

    /** Zeroes a range; whole pages are freed, partial ones cleared in place. */
    private void zero(long offset, long length) {
        long end = offset + length;
        long firstWhole = (offset + PAGE - 1) >>> SHIFT;
        long endWhole = end >>> SHIFT;
        if (firstWhole >= endWhole) {
            zeroPartial(offset, end);
            return;
        }
        zeroPartial(offset, firstWhole << SHIFT);
        pages.forEachPresent(firstWhole, endWhole, this::freePage);
        zeroPartial(endWhole << SHIFT, end);
    }

    private void zeroPartial(long from, long to) {
        long pos = from;
        while (pos < to) {
            long index = pos >>> SHIFT;
            int in = (int) (pos & (PAGE - 1));
            int n = (int) Math.min(PAGE - in, to - pos);
            if (n == PAGE) {
                freePage(index);
            } else if (!writeback) {
                byte[] page = pages.get(index);
                if (page != null) {
                    java.util.Arrays.fill(page, in, in + n, (byte) 0);
                }
            } else {
                ReentrantLock stripe = stripe(index);
                stripe.lock();
                try {
                    byte[] page = pages.get(index);
                    if (page != null) {
                        rememberDurable(index, page, true);
                        java.util.Arrays.fill(page, in, in + n, (byte) 0);
                    }
                } finally {
                    stripe.unlock();
                }
            }
            pos += n;
        }
    }

    private void freePage(long index) {
        if (!writeback) {
            byte[] page = pages.get(index);
            if (page != null && pages.clear(index, page)) {
                allocatedPages.decrementAndGet();
            }
            return;
        }
        ReentrantLock stripe = stripe(index);
        stripe.lock();
        try {
            byte[] page = pages.get(index);
            if (page != null) {
                // The page leaves the table untouched, so it can serve as its own durable copy.
                rememberDurable(index, page, false);
                pages.clear(index, page);
                allocatedPages.decrementAndGet();
            }
        } finally {
            stripe.unlock();
        }
    }

    /** Caller holds the page's stripe lock. Keeps the page's durable content unless already kept. */
    private void rememberDurable(long index, byte[] current, boolean copy) {
        Long key = index;
        if (!durable.containsKey(key)) {
            durable.put(key, current == null ? ABSENT : copy ? current.clone() : current);
        }
    }

    private static boolean isZero(MemorySegment data) {
        return data.mismatch(ZERO_PAGE.asSlice(0, data.byteSize())) == -1;
    }

    private byte[] pageForWrite(long index) {
        byte[] page = pages.get(index);
        if (page != null) {
            return page;
        }
        byte[] fresh = new byte[PAGE];
        page = pages.setIfAbsent(index, fresh);
        if (page == fresh) {
            allocatedPages.incrementAndGet();
        }
        return page;
    }

    @Override
    public void flush() {
        // Forgetting a durable copy makes the cached page durable. Entries added while this runs
        // belong to writes still in flight, which a flush may or may not cover.
        durable.clear();
    }

    @Override
    public void powerCut() {
        if (!writeback) {
            return;
        }
        for (ReentrantLock s : stripes) {
            s.lock();
        }
        try {
            for (Map.Entry<Long, byte[]> e : durable.entrySet()) {
                long index = e.getKey();
                byte[] before = e.getValue();
                byte[] now = before == ABSENT ? pages.set(index, null) : pages.set(index, before);
                allocatedPages.addAndGet((now != null ? -1 : 0) + (before != ABSENT ? 1 : 0));
            }
            durable.clear();
        } finally {
            for (int i = STRIPES - 1; i >= 0; i--) {
                stripes[i].unlock();
            }
        }
    }

    private ReentrantLock stripe(long index) {
        return stripes[(int) (index & (STRIPES - 1))];
    }

    @Override
    public boolean nativeFua() {
        return true;
    }

    @Override
    public boolean blocking() {
        return false;
    }

    @Override
    public long allocatedBytes() {
        return allocatedPages.get() * PAGE;
    }

    /** Bytes held as durable copies of dirty pages: the volatile cache's overhead. */
    public long dirtyPages() {
        return durable.size();
    }

    @Override
    public boolean persistent() {
        return false;
    }

    @Override
    public void close() {
        // Pages go with the object.
    }
}
