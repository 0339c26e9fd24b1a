package io.blockwork.engine.dm;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.Extents;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A device-mapper device: a name, an optional uuid, a live table that I/O goes through and an
 * inactive table waiting for resume, with the lifecycle {@code dmsetup} drives: create, load,
 * suspend, resume, clear, rename, message, info, remove.
 *
 * <p>The I/O path (splitting into target pieces, flush fan-out, the suspend gate and the drain
 * a suspend waits for, the allocation query) is {@link DmIo}; this class owns the tables and
 * their lifecycle. Suspend runs the live targets'
 * presuspend, closes the gate so new I/O is held, waits for the I/O in flight to drain (mapped
 * pieces, and everything inside targets and below them), then runs postsuspend. Resume swaps a
 * loaded table in, if any, and opens the gate; held I/O goes through the table live by then.
 *
 * <p>{@code noflush}: targets see it in {@link TargetContext#noflushSuspending()}, and I/O a
 * target pushes back while it runs ({@link MapResult.Requeue}, {@link EndIo#REQUEUE}) is kept
 * and mapped again after resume instead of failing. The kernel's other use of the flag, freezing
 * a file system before suspending, has no counterpart: nothing above a mapped device here caches
 * writes, so both forms leave the same data behind.
 *
 * <p>Management operations are serialised by {@link #control}; the I/O path never takes it.
 * Size, limits and {@link #lowerDevices()} follow the live table.
 *
 * <p>Size note: over 400 lines because every lifecycle step (create, load, suspend, resume,
 * swap, clear, rename, message, remove) is a state transition under the one {@link #control}
 * lock, and each is read against the others; the I/O path and the suspend's drain are
 * {@link DmIo}'s, the table {@link Table}'s.
 */
public final class MappedDevice extends AbstractBlockDevice {

    /** The longest name and uuid dm accepts (DM_NAME_LEN and DM_UUID_LEN, less the NUL). */
    public static final int MAX_NAME = 127;
    public static final int MAX_UUID = 128;

    private static final DeviceLimits NO_TABLE_LIMITS = DeviceLimits.of(DeviceLimits.SECTOR);
    private static final long NO_TIMEOUT = Long.MAX_VALUE;

    private final DmConfig config;
    private final DmIo io;
    private final AtomicLong events = new AtomicLong();
    private final AtomicInteger openCount = new AtomicInteger();
    private final TableOwner owner = new Owner();

    /** Serialises management operations; held across suspend's wait; never taken on the I/O path. */
    private final ReentrantLock control = new ReentrantLock();
    /** Written under {@link #control}. */
    private volatile Table inactive;
    /** Written under {@link #control}. */
    private volatile DeviceInfo.State state = DeviceInfo.State.ACTIVE;
    /** Written under {@link #control}. */
    private volatile String uuid;

    private MappedDevice(String name, String uuid, DmConfig config) {
        super(name);
        this.uuid = uuid;
        this.config = config;
        this.io = new DmIo(config.emptyFlush());
    }

    /* ---- Creation ---- */

    /**
     * Creates a device and makes {@code table} live, as {@code dmsetup create} does; with a null or
     * blank table the device has no table (size 0) until one is loaded and resumed.
     *
     * @throws TableException if the table is refused (naming its line); no device exists then
     */
    public static MappedDevice create(String name, String uuid, String table, DeviceLookup lookup, DmConfig config)
            throws TableException {
        return create(name, uuid, table == null ? null : TableSpec.parse(table), lookup, config);
    }

    /** As {@link #create(String, String, String, DeviceLookup, DmConfig)}, from a parsed or listed table. */
    public static MappedDevice create(String name, String uuid, TableSpec table, DeviceLookup lookup, DmConfig config)
            throws TableException {
        checkName(name);
        String u = uuid == null ? "" : uuid;
        checkUuid(u);
        MappedDevice d = new MappedDevice(name, u, Objects.requireNonNull(config, "config"));
        if (table != null && !table.lines().isEmpty()) {
            Table t = Table.build(table, lookup, config, d, d.owner);
            try {
                t.preresume();
            } catch (TableException e) {
                t.close();
                throw e;
            }
            t.resume();
            d.io.live(t);
        }
        return d;
    }

    /* ---- I/O ---- */

    @Override
    protected void dispatch(Bio bio) {
        io.submit(bio);
    }

    /* ---- Lifecycle ---- */

    /**
     * Loads a table into the inactive slot ({@code dmsetup load}), replacing any table already
     * there; the live table and the I/O through it are untouched.
     *
     * @throws TableException naming the refused line; the device is unchanged
     */
    public void load(String table, DeviceLookup lookup) throws TableException {
        load(TableSpec.parse(table), lookup);
    }

    public void load(TableSpec table, DeviceLookup lookup) throws TableException {
        control.lock();
        try {
            checkPresent();
            replaceInactive(Table.build(table, lookup, config, this, owner));
        } finally {
            control.unlock();
        }
    }

    /** Drops the inactive table ({@code dmsetup clear}). */
    public void clear() {
        control.lock();
        try {
            checkPresent();
            replaceInactive(null);
        } finally {
            control.unlock();
        }
    }

    @GuardedBy("control")
    private void replaceInactive(Table next) {
        Table old = inactive;
        inactive = next;
        if (old != null) {
            old.close();
        }
    }

    /** Suspends with flush semantics and no time limit. */
    public void suspend() {
        suspend(false, null);
    }

    public void suspend(boolean noflush) {
        suspend(noflush, null);
    }

    /**
     * Suspends ({@code dmsetup suspend [--noflush]}): targets' presuspend, then new I/O is held,
     * then waits for every I/O in flight to complete, then postsuspend. A no-op when already
     * suspended.
     *
     * @param timeout how long to wait for I/O in flight; null for no limit
     * @throws DmException if the wait timed out or was interrupted; the device is active again
     */
    public void suspend(boolean noflush, Duration timeout) {
        List<DmIo.Held> abandoned = null;
        control.lock();
        try {
            checkPresent();
            if (state == DeviceInfo.State.ACTIVE) {
                abandoned = suspendLocked(noflush, timeout == null ? NO_TIMEOUT : timeout.toNanos());
            }
        } finally {
            control.unlock();
        }
        if (abandoned != null) {
            io.replay(abandoned);
            throw new DmException(abandonedSuspend(timeout));
        }
    }

    private String abandonedSuspend(Duration timeout) {
        return "suspend of '" + name() + "' abandoned: " + io.inFlight() + " I/Os still in flight "
                + (Thread.currentThread().isInterrupted() ? "when interrupted" : "after " + timeout);
    }

    /**
     * Caller holds {@link #control}: suspends with no time limit before {@code operation}, which
     * cannot go on if the wait was interrupted (the held I/O is replayed, the device active again).
     */
    @GuardedBy("control")
    private void suspendUntilDrained(boolean noflush, String operation) {
        List<DmIo.Held> abandoned = suspendLocked(noflush, NO_TIMEOUT);
        if (abandoned != null) {
            io.replay(abandoned);
            throw new DmException(operation + " of '" + name() + "' was interrupted while suspending");
        }
    }

    /**
     * Caller holds {@link #control}. Returns null once suspended; if the wait timed out or was
     * interrupted, the held I/O, to replay after unlocking (see {@link DmIo#suspend}).
     */
    private List<DmIo.Held> suspendLocked(boolean noflush, long timeoutNanos) {
        List<DmIo.Held> abandoned = io.suspend(noflush, timeoutNanos);
        if (abandoned == null) {
            state = DeviceInfo.State.SUSPENDED;
        }
        return abandoned;
    }

    /**
     * Resumes ({@code dmsetup resume}): if a table was loaded, suspends first if needed, swaps it
     * in (the event number goes up, the old table is closed), then lets held I/O go through it.
     *
     * @throws TableException if a target of the table to be live refuses to resume; the device
     *         stays suspended and keeps both tables
     */
    public void resume() throws TableException {
        List<DmIo.Held> replay;
        control.lock();
        try {
            checkPresent();
            if (inactive == null && state == DeviceInfo.State.ACTIVE) {
                return;
            }
            replay = resumeLocked(false);
        } finally {
            control.unlock();
        }
        io.replay(replay);
    }

    /** Returns the held I/O to replay after unlocking. */
    @GuardedBy("control")
    private List<DmIo.Held> resumeLocked(boolean noflush) throws TableException {
        Table next = inactive;
        if (next != null && state == DeviceInfo.State.ACTIVE) {
            suspendUntilDrained(noflush, "resume");
        }
        Table old = io.live();
        if (next != null) {
            next.preresume();
            io.live(next);
            inactive = null;
            events.incrementAndGet();
            if (old != null) {
                old.close();
            }
        } else if (old != null) {
            old.preresume();
        }
        Table now = io.live();
        if (now != null) {
            now.resume();
        }
        state = DeviceInfo.State.ACTIVE;
        return io.unblock();
    }

    /**
     * Makes {@code table} live online, the way a manager changes a device's mapping ({@code dmsetup
     * load}, {@code suspend}, {@code resume} in one step): the table is built into the inactive
     * slot, the device suspended (new I/O is held, I/O in flight completes, waiting at most
     * {@code timeout}), and resumed, which swaps the table in and lets the held I/O through it. No
     * I/O fails on the way. If any step fails the device is left as it was: the new table dropped,
     * the old one live and the device active.
     *
     * @param timeout how long the suspend waits for I/O in flight; null for no limit
     * @throws TableException if the table is refused when built or when it resumes
     * @throws DmException if the suspend timed out or was interrupted
     */
    public void swap(TableSpec table, DeviceLookup lookup, Duration timeout) throws TableException {
        List<DmIo.Held> replay;
        RuntimeException failure = null;
        control.lock();
        try {
            checkPresent();
            replaceInactive(Table.build(table, lookup, config, this, owner));
            List<DmIo.Held> abandoned = state == DeviceInfo.State.ACTIVE
                    ? suspendLocked(false, timeout == null ? NO_TIMEOUT : timeout.toNanos()) : null;
            if (abandoned != null) {
                replaceInactive(null);
                replay = abandoned;
                failure = new DmException(abandonedSuspend(timeout) + "; its table is unchanged");
            } else {
                try {
                    replay = resumeLocked(false);
                } catch (TableException e) {
                    replaceInactive(null); // suspended with both tables: back to the old one, active
                    replay = resumeLocked(false);
                    failure = e;
                }
            }
        } finally {
            control.unlock();
        }
        io.replay(replay);
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * For a forced remove: swaps in a table of one {@code error} target of the same size (through a
     * noflush suspend, so I/O a target pushes back ends in the error table), so every later I/O
     * fails while users let go. Any loaded table is dropped.
     */
    public void replaceWithErrorTable() {
        List<DmIo.Held> replay;
        control.lock();
        try {
            checkPresent();
            Table current = io.live();
            long sectors = current == null ? 0 : current.sizeSectors();
            if (sectors == 0) {
                return;
            }
            if (config.registry().find("error") == null) {
                throw new DmException("the target registry has no 'error' target");
            }
            replaceInactive(Table.build(new TableSpec(List.of(new TableSpec.Line(1, 0, sectors, "error", List.of()))),
                    name -> null, config, this, owner));
            replay = resumeLocked(true);
        } catch (TableException e) {
            throw new DmException("cannot swap in the error table: " + e.getMessage(), e);
        } finally {
            control.unlock();
        }
        io.replay(replay);
    }

    /**
     * {@code dmsetup remove [--force]}: with {@code force}, first {@link #replaceWithErrorTable()}
     * so that holders' I/O fails instead of waiting, then {@link #remove()}.
     */
    public void remove(boolean force) {
        if (force) {
            replaceWithErrorTable();
        }
        remove();
    }

    /**
     * Removes the device: suspends it if needed, drops both tables (closing their targets) and
     * fails held and later I/O. Whether it may go (open, exported, used by another object) is the
     * caller's decision; see {@link #replaceWithErrorTable()} for forcing.
     */
    public void remove() {
        List<DmIo.Held> failed;
        control.lock();
        try {
            if (state == DeviceInfo.State.REMOVED) {
                return;
            }
            if (state == DeviceInfo.State.ACTIVE) {
                suspendUntilDrained(true, "remove");
            }
            failed = io.close();
            for (Table t : new Table[] {io.live(), inactive}) {
                if (t != null) {
                    t.close();
                }
            }
            io.live(null);
            inactive = null;
            state = DeviceInfo.State.REMOVED;
        } finally {
            control.unlock();
        }
        failed.forEach(DmIo::fail);
    }

    /** Renames the device ({@code dmsetup rename}); the caller keeps names unique. */
    @Override
    public void rename(String newName) {
        checkName(newName);
        control.lock();
        try {
            checkPresent();
            super.rename(newName);
        } finally {
            control.unlock();
        }
    }

    /** Sets the uuid of a device created without one ({@code dmsetup rename --setuuid}). */
    public void setUuid(String newUuid) {
        checkUuid(newUuid);
        control.lock();
        try {
            checkPresent();
            if (!uuid.isEmpty()) {
                throw new DmException("device '" + name() + "' already has uuid '" + uuid + "'");
            }
            uuid = newUuid;
        } finally {
            control.unlock();
        }
    }

    /**
     * Sends a message to the live target covering {@code sector} ({@code dmsetup message}).
     *
     * @return the target's reply, "" for none
     * @throws DmException if no target covers the sector or the target refuses the message
     */
    public String message(long sector, String message) {
        List<String> argv = message.isBlank() ? List.of() : List.of(message.strip().split("[ \t]+"));
        control.lock();
        try {
            checkPresent();
            Table t = io.live();
            Table.Entry e = t == null ? null : t.targetAt(sector);
            if (e == null) {
                throw new DmException("no target of '" + name() + "' covers sector " + sector
                        + " (size " + (t == null ? 0 : t.sizeSectors()) + " sectors)");
            }
            try {
                return e.target().message(argv);
            } catch (TargetException ex) {
                throw new DmException(e.type().name() + " at sector " + e.startSector() + ": " + ex.getMessage());
            }
        } finally {
            control.unlock();
        }
    }

    /** Records an open (an export, a device stacked above); the service decides what counts. */
    public void open() {
        openCount.incrementAndGet();
    }

    public void release() {
        if (openCount.getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
            throw new IllegalStateException("device '" + name() + "' is not open");
        }
    }

    /* ---- Reading state ---- */

    public DeviceInfo info() {
        Table t = io.live();
        return new DeviceInfo(name(), uuid, state, openCount.get(), events.get(), t != null, inactive != null,
                t == null ? 0 : t.entries().size(), t == null ? 0 : t.sizeSectors());
    }

    public String uuid() {
        return uuid;
    }

    public DeviceInfo.State state() {
        return state;
    }

    /** The live table as {@code dmsetup table} prints it; "" without one. */
    public String tableText() {
        Table t = io.live();
        return t == null ? "" : t.text();
    }

    /** The inactive table as {@code dmsetup table --inactive} prints it; "" without one. */
    public String inactiveTableText() {
        Table t = inactive;
        return t == null ? "" : t.text();
    }

    /** The live table's status as {@code dmsetup status} prints it; "" without one. */
    public String statusText() {
        Table t = io.live();
        return t == null ? "" : t.statusText(StatusType.INFO);
    }

    /** Per-target status lines of the live table. */
    public List<TargetStatus> status(StatusType type) {
        Table t = io.live();
        return t == null ? List.of() : t.status(type);
    }

    /**
     * Asks each live target covering the range (a target that cannot tell reports data). A write
     * that completed went through a table whose mapping the live one keeps, or replaced, with the
     * data where the live one points (a manager's swap moves data before it swaps).
     */
    @Override
    public void allocation(long offset, long length, Extents out) {
        io.allocation(offset, length, out);
    }

    /** The live table, or null. */
    public Table liveTable() {
        return io.live();
    }

    /** The inactive table, or null. */
    public Table inactiveTable() {
        return inactive;
    }

    /** I/O submitted or mapped and not yet complete (held I/O not included). */
    public long inFlight() {
        return io.inFlight();
    }

    /** The strategy empty flushes use. */
    public EmptyFlush emptyFlush() {
        return config.emptyFlush();
    }

    @Override
    public long sizeBytes() {
        Table t = io.live();
        return t == null ? 0 : t.sizeBytes();
    }

    @Override
    public DeviceLimits limits() {
        Table t = io.live();
        return t == null ? NO_TABLE_LIMITS : t.limits();
    }

    /** The live table's devices (sysfs {@code slaves}). */
    @Override
    public Collection<BlockDevice> lowerDevices() {
        Table t = io.live();
        return t == null ? List.of() : t.devices();
    }

    /** Devices of the live and the inactive table: what this device uses or is about to. */
    public Collection<BlockDevice> referencedDevices() {
        LinkedHashSet<BlockDevice> out = new LinkedHashSet<>(lowerDevices());
        Table t = inactive;
        if (t != null) {
            out.addAll(t.devices());
        }
        return out;
    }

    TableOwner tableOwner() {
        return owner;
    }

    private final class Owner implements TableOwner {
        @Override
        public void event() {
            events.incrementAndGet();
        }

        @Override
        public boolean noflushSuspending() {
            return io.noflushSuspending();
        }
    }

    /* ---- Checks ---- */

    private void checkPresent() {
        if (state == DeviceInfo.State.REMOVED) {
            throw new DmException("device '" + name() + "' has been removed");
        }
    }

    static void checkName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME || name.equals(".") || name.equals("..")
                || name.chars().anyMatch(c -> Character.isWhitespace(c) || c == '/' || Character.isISOControl(c))) {
            throw new DmException("invalid device name '" + name + "': 1 to " + MAX_NAME
                    + " characters, no white space or '/'");
        }
    }

    private static void checkUuid(String uuid) {
        if (uuid.length() > MAX_UUID || uuid.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
            throw new DmException("invalid uuid '" + uuid + "': up to " + MAX_UUID + " characters, no white space");
        }
    }
}
