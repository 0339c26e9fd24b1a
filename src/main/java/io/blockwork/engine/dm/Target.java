package io.blockwork.engine.dm;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.IoStatus;
import java.util.List;

/**
 * One constructed target of a table: the kernel's {@code struct dm_target} private context plus
 * the callbacks of its {@code target_type}. A {@link TargetType}'s constructor builds one per
 * table line; the core calls the rest. Only {@link #map}, {@link #status} and {@link #devices}
 * are required, as in the kernel, where unused callbacks are NULL.
 *
 * <p>What the core guarantees a target:
 * <ul>
 *   <li>A bio given to {@link #map} lies wholly inside the target, and its offset is relative to
 *       the target's first byte (the kernel's {@code dm_target_offset}); it never crosses a
 *       multiple of {@link #maxIoSectors} counted from the target's start.
 *   <li>Empty flushes come through {@link #mapFlush}, {@link #numFlushBios} times per flush,
 *       unless the whole table lets flushes bypass {@code map} ({@link #flushBypassesMap}); a data
 *       bio never carries PREFLUSH here: the core sends the empty flush first and the data after
 *       it completes, as dm does. FUA is passed through.
 *   <li>Each bio's completion passes {@link #endIo} before it reaches the submitter.
 *   <li>The bio's {@link Bio#context() context} slot belongs to the target (per-bio data); the
 *       core does not use it.
 *   <li>Suspend calls {@link #presuspend}, waits for every mapped bio to complete, then calls
 *       {@link #postsuspend}; resume calls {@link #preresume} then {@link #resume} on the table
 *       becoming live. {@link #close} is called once, when the table is dropped.
 * </ul>
 * Callbacks other than the lifecycle ones may run on any thread, concurrently, and must not
 * block. A target that holds bios back (delay) must release them in {@link #presuspend}, or
 * suspend waits for them.
 */
public interface Target {

    /**
     * Maps one bio (reads, writes, discards, write-zeroes, and flushes sent through
     * {@link #mapFlush}'s default).
     */
    MapResult map(Bio bio);

    /**
     * Maps empty flush number {@code index} of {@link #numFlushBios} (the kernel's
     * {@code dm_bio_get_target_bio_nr}); a striped target sends flush {@code i} to stripe {@code i}.
     */
    default MapResult mapFlush(Bio flush, int index) {
        return map(flush);
    }

    /**
     * Sees a mapped bio's outcome before the submitter does and may change it (the kernel's
     * {@code end_io}): count errors, corrupt data read back, translate a status, or push the bio
     * back ({@link EndIo#REQUEUE}).
     */
    default EndIo endIo(Bio bio, IoStatus status) {
        return EndIo.done(status);
    }

    /**
     * The status line in one of its forms. TABLE is the arguments in canonical form, so that the
     * table text printed from it parses back to an equal target; INFO may be empty.
     */
    String status(StatusType type);

    /** The areas of underlying devices this target uses, in argument order. */
    List<DeviceRange> devices();

    /**
     * What {@code [offset, offset+length)} of the target holds, offsets relative to the target's
     * start (see {@link io.blockwork.engine.block.BlockDevice#allocation}): a target that passes
     * reads to a fixed place asks that place; one that cannot tell exactly reports data (the
     * default). Any thread; must not wait for I/O.
     */
    default void allocation(long offset, long length, Extents out) {
        out.add(length, Allocation.DATA);
    }

    /** How many empty flush bios one flush of the table sends through this target; 0 for none. */
    default int numFlushBios() {
        return 1;
    }

    /**
     * True if a flush needs nothing from this target but to reach its devices (linear,
     * striped): when every target of a table says so, the core sends one empty flush to each
     * distinct device instead of calling {@link #mapFlush} (Linux 6.11, "dm: optimize flushes").
     */
    default boolean flushBypassesMap() {
        return false;
    }

    /** Bios are split so none crosses a multiple of this many sectors from the target's start; 0 for none. */
    default long maxIoSectors() {
        return 0;
    }

    /** The device is about to suspend; release any bios held back. {@code noflush} as given to suspend. */
    default void presuspend(boolean noflush) {}

    /** A suspend failed (timed out or was interrupted) after {@link #presuspend}: undo it. */
    default void presuspendUndo() {}

    /** The device is suspended and no bio of this table is in flight. */
    default void postsuspend() {}

    /** This table is about to become live (or live again); refusing keeps the device suspended. */
    default void preresume() throws TargetException {}

    /** This table is live and I/O is about to flow again. */
    default void resume() {}

    /**
     * Handles {@code dmsetup message}; returns the reply ("" for none). The default refuses, as
     * the kernel does for targets without a {@code message} callback.
     */
    default String message(List<String> argv) throws TargetException {
        throw new TargetException("target does not handle messages");
    }

    /** The table is being dropped (the kernel's {@code dtr}); no bio is in flight. */
    default void close() {}
}
