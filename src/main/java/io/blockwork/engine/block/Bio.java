package io.blockwork.engine.block;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * One block I/O request: an operation on a byte range of a device, with flags, a data buffer for
 * reads and writes, and a completion.
 *
 * <p>Design notes.
 * <ul>
 *   <li>The shape (op, offset, length, flags, data) is immutable. A layer that remaps, splits or
 *       fans a bio out makes <em>child</em> bios with {@link #chainChild}; the data of a child is a
 *       slice of the parent's segment, never a copy.
 *   <li>Completion is reference counted like the kernel's {@code bi_remaining}: a bio starts with
 *       one reference, each chained child adds one, and {@link #endio(IoStatus)} drops one. The
 *       callback runs when the count reaches zero. A layer that fans out therefore creates and
 *       submits all its children and then drops its own reference, so the parent cannot complete
 *       half-way through the fan-out.
 *   <li>The first error wins: a later error never overwrites an earlier one, and OK never
 *       overwrites an error.
 *   <li>{@link #context} is a slot for the layer that owns the bio (the kernel's per-bio data),
 *       e.g. the member index a raid read went to, so it can retry elsewhere on error.
 * </ul>
 */
public final class Bio {

    private static final VarHandle REMAINING;
    private static final VarHandle STATUS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            REMAINING = l.findVarHandle(Bio.class, "remaining", int.class);
            STATUS = l.findVarHandle(Bio.class, "status", IoStatus.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final BioOp op;
    private final long offset;
    private final long length;
    private final BioFlags flags;
    private final MemorySegment data;
    private final BioCallback callback;
    private final Bio parent;

    /** The device accounting this bio's completion ({@link IoStats#start}), or null. */
    private IoStats accountedBy;
    /** When it was submitted there, if timed; else 0. */
    private long startNanos;

    private volatile int remaining = 1;
    /** Null until an error is recorded; read as OK. */
    private volatile IoStatus status;
    private Object context;

    private Bio(BioOp op, long offset, long length, BioFlags flags, MemorySegment data,
                BioCallback callback, Bio parent) {
        this.op = op;
        this.offset = offset;
        this.length = length;
        this.flags = flags;
        this.data = data;
        this.callback = callback;
        this.parent = parent;
    }

    /* ---- Construction ---- */

    /** A new top-level bio. {@code data} is required for READ and WRITE and must be {@code length} bytes. */
    public static Bio of(BioOp op, long offset, long length, BioFlags flags, MemorySegment data,
                         BioCallback callback) {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(flags, "flags");
        Objects.requireNonNull(callback, "callback");
        checkShape(op, offset, length, data);
        return new Bio(op, offset, length, flags, data, callback, null);
    }

    public static Bio read(long offset, MemorySegment into, BioCallback callback) {
        return of(BioOp.READ, offset, into.byteSize(), BioFlags.NONE, into, callback);
    }

    public static Bio write(long offset, MemorySegment from, BioFlags flags, BioCallback callback) {
        return of(BioOp.WRITE, offset, from.byteSize(), flags, from, callback);
    }

    public static Bio flush(BioCallback callback) {
        return of(BioOp.FLUSH, 0, 0, BioFlags.NONE, null, callback);
    }

    /**
     * A child whose completion feeds this bio: its error (if any) is recorded here, and this bio
     * completes only after the child has. The child covers {@code [offset, offset+length)} of the
     * device it is submitted to; {@code dataOffset} says where its data starts inside this bio's
     * buffer (ignored for operations without data).
     */
    public Bio chainChild(BioOp childOp, long childOffset, long childLength, long dataOffset, BioFlags childFlags) {
        MemorySegment childData = childOp.hasData() ? data.asSlice(dataOffset, childLength) : null;
        checkShape(childOp, childOffset, childLength, childData);
        REMAINING.getAndAdd(this, 1);
        return new Bio(childOp, childOffset, childLength, childFlags, childData, null, this);
    }

    /** A child that covers the whole of this bio at another device offset (dm-linear's remap). */
    public Bio remap(long newOffset) {
        return chainChild(op, newOffset, length, 0, flags);
    }

    /** A child for part of this bio: {@code [relOffset, relOffset+len)} of it, at {@code newOffset}. */
    public Bio split(long relOffset, long len, long newOffset) {
        return chainChild(op, newOffset, len, relOffset, flags);
    }

    /**
     * A child with its own callback, for layers that must look at each child's outcome before
     * passing it on (a raid read that retries another mirror). The callback decides when to
     * {@link #endio} this bio; the child does <em>not</em> hold a reference on it.
     */
    public Bio derive(BioOp childOp, long childOffset, long childLength, long dataOffset, BioFlags childFlags,
                      BioCallback childCallback) {
        MemorySegment childData = childOp.hasData() ? data.asSlice(dataOffset, childLength) : null;
        checkShape(childOp, childOffset, childLength, childData);
        return new Bio(childOp, childOffset, childLength, childFlags, childData, childCallback, null);
    }

    private static void checkShape(BioOp op, long offset, long length, MemorySegment data) {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("negative offset or length: " + offset + "+" + length);
        }
        if (op.hasData()) {
            if (data == null || data.byteSize() != length) {
                throw new IllegalArgumentException(op + " needs a buffer of " + length + " bytes");
            }
        } else if (data != null) {
            throw new IllegalArgumentException(op + " carries no data");
        }
        if (op == BioOp.FLUSH && length != 0) {
            throw new IllegalArgumentException("a flush has no range");
        }
    }

    /* ---- Completion ---- */

    /** Drops one reference; records {@code result} if it is the first error. */
    public void endio(IoStatus result) {
        if (result != IoStatus.OK) {
            STATUS.compareAndSet(this, (IoStatus) null, result);
        }
        if ((int) REMAINING.getAndAdd(this, -1) == 1) {
            complete();
        }
    }

    public void endio() {
        endio(IoStatus.OK);
    }

    /** Adds a reference, for a layer that will call {@link #endio} once more (kernel: bio_inc_remaining). */
    public void retain() {
        REMAINING.getAndAdd(this, 1);
    }

    private void complete() {
        IoStats stats = accountedBy;
        if (stats != null) {
            stats.completed(this, startNanos);
        }
        if (parent != null) {
            parent.endio(status());
        } else {
            callback.done(this);
        }
    }

    /* ---- Accessors ---- */

    public BioOp op() {
        return op;
    }

    public long offset() {
        return offset;
    }

    public long length() {
        return length;
    }

    public long end() {
        return offset + length;
    }

    public BioFlags flags() {
        return flags;
    }

    public boolean preflush() {
        return flags.preflush();
    }

    public boolean fua() {
        return flags.fua();
    }

    /** The data buffer of a READ or WRITE, else null. */
    public MemorySegment data() {
        return data;
    }

    public IoStatus status() {
        IoStatus s = status;
        return s == null ? IoStatus.OK : s;
    }

    IoStats accountedBy() {
        return accountedBy;
    }

    /**
     * Set once, by the submitting thread before the bio is handed on; read by whichever thread
     * completes it, which the hand-off (queues, the completion's reference count) orders after.
     */
    void accountedBy(IoStats stats, long start) {
        accountedBy = stats;
        startNanos = start;
    }

    public Object context() {
        return context;
    }

    public void context(Object value) {
        context = value;
    }

    @Override
    public String toString() {
        return op + "@" + offset + "+" + length + (flags == BioFlags.NONE ? "" : " " + flags);
    }
}
