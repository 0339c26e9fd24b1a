package io.blockwork.engine.dm;

import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.Plug;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A device-mapper device: a name, an optional uuid, a live table that I/O goes through and an
 * inactive table waiting for resume, with the lifecycle {@code dmsetup} drives.
 *
 * <p>Design notes.
 * <ul>
 *   <li><b>Mapping.</b> {@link #dispatch} cuts a bio at target edges and at each target's chunk
 *       ({@link Target#maxIoSectors}), counted from the target's start, as dm's
 *       {@code max_io_len} does; when one device-wide boundary expresses all of those, the table
 *       advertises it in {@link #limits()} and the core has already split. Each piece becomes a
 *       clone with target-relative offsets, handed to the target's {@code map}; the clone's
 *       completion passes the target's {@code endIo} and then ends one reference on the original.
 *   <li><b>Flush.</b> An empty flush fans out through the device's {@link EmptyFlush} strategy. A
 *       data bio with PREFLUSH sends an empty flush first and its data without PREFLUSH once the
 *       flush completed, as dm does; FUA rides on every piece.
 *   <li><b>Suspend.</b> Submitters take a ticket in {@link InFlight}, then check {@code blocked}:
 *       suspend sets {@code blocked} and then waits for the count to drain, and both sides use
 *       volatile accesses, so a bio either is counted before suspend waits or sees
 *       {@code blocked} and is held. Held bios wait in {@link #held} and go out, through the
 *       table live by then, on resume. Clones count too, so suspend also waits for I/O inside
 *       targets and below them; a target that holds bios (delay) releases them in presuspend.
 *   <li><b>noflush.</b> {@code suspend(true)} tells targets through
 *       {@link TargetContext#noflushSuspending()}, and a bio a target pushes back
 *       ({@link MapResult.Requeue}) while it runs is kept and mapped again after resume, through
 *       the new table if one was swapped in; without noflush a pushed-back bio fails. The kernel's
 *       other use of the flag, freezing a file system before suspend, has no counterpart here:
 *       nothing above a mapped device caches writes, so either form leaves the same data.
 * </ul>
 * Management operations are serialised by {@link #control}; the I/O path never takes it.
 */
public final class MappedDevice extends AbstractBlockDevice {

    /** The longest name and uuid dm accepts (DM_NAME_LEN and DM_UUID_LEN, less the NUL). */
    public static final int MAX_NAME = 127;
    public static final int MAX_UUID = 128;

    private static final DeviceLimits NO_TABLE_LIMITS = DeviceLimits.of(DeviceLimits.SECTOR);
    private static final long NO_TIMEOUT = Long.MAX_VALUE;

    private final DmConfig config;
    private final EmptyFlush emptyFlush;
    private final FlushPaths flushPaths = new FlushPaths();
    private final InFlight inflight = new InFlight();
    private final AtomicLong events = new AtomicLong();
    private final AtomicInteger openCount = new AtomicInteger();
    private final TableOwner owner = new Owner();

    /** Serialises management operations; held across suspend's wait; never taken on the I/O path. */
    private final ReentrantLock control = new ReentrantLock();
    /** Written under {@link #control}. */
    private volatile Table live;
    /** Written under {@link #control}. */
    private volatile Table inactive;
    /** Written under {@link #control}. */
    private volatile DeviceInfo.State state = DeviceInfo.State.ACTIVE;
    /** Written under {@link #control}. */
    private volatile String uuid;
    /** Written under {@link #control}: the noflush suspend in progress. */
    private volatile boolean noflushSuspending;

    /** Leaf lock; guards {@link #held}, and {@link #blocked} and {@link #removed} change under it. */
    private final Object holdLock = new Object();
    /** I/O is held instead of mapped (DMF_BLOCK_IO_FOR_SUSPEND). */
    private volatile boolean blocked;
    private volatile boolean removed;
    /** Guarded by {@link #holdLock}: I/O waiting for resume, oldest first. */
    private List<Held> held = new ArrayList<>();

    private MappedDevice(String name, String uuid, DmConfig config) {
        super(name);
        this.uuid = uuid;
        this.config = config;
        this.emptyFlush = config.emptyFlush();
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
            d.live = t;
        }
        return d;
    }

    /* ---- I/O ---- */

    @Override
    protected void dispatch(Bio bio) {
        inflight.enter();
        try {
            if (blocked) {
                hold(new WholeBio(bio));
            } else {
                route(live, bio);
            }
        } finally {
            inflight.exit();
        }
    }

    private void route(Table t, Bio bio) {
        if (t == null) {
            bio.endio(IoStatus.IO_ERROR);
        } else if (bio.op() == BioOp.FLUSH) {
            emptyFlush.issue(t, bio, flushPaths);
            bio.endio();
        } else if (bio.preflush()) {
            flushThenData(t, bio);
        } else {
            mapRange(t, bio, bio.op(), bio.offset(), bio.length(), 0, bio.flags());
            bio.endio();
        }
    }

    /** PREFLUSH on data: the empty flush first; the data, without PREFLUSH, once it completed. */
    private void flushThenData(Table t, Bio bio) {
        Bio flush = bio.derive(BioOp.FLUSH, 0, 0, 0, BioFlags.NONE, f -> {
            if (f.status().ok()) {
                // Through the gate again: if a suspend began meanwhile, the data waits for resume.
                submitHeld(new Range(bio, bio.op(), bio.offset(), bio.length(), 0, bio.flags().withPreflush(false)));
            } else {
                bio.endio(f.status());
            }
        });
        emptyFlush.issue(t, flush, flushPaths);
        flush.endio();
    }

    /**
     * Maps {@code [offset, offset+length)} of {@code parent} (data from {@code dataOffset} of its
     * buffer) through {@code t}, one clone per target piece. Each piece holds a reference on
     * {@code parent}; the caller keeps its own.
     */
    private void mapRange(Table t, Bio parent, BioOp op, long offset, long length, long dataOffset, BioFlags flags) {
        long end = offset + length;
        while (offset < end) {
            Table.Entry e = t.find(offset);
            if (e == null) {
                // The range was held across a swap to a smaller table: no target maps it (dm: EIO).
                parent.retain();
                parent.endio(IoStatus.IO_ERROR);
                return;
            }
            long len = Math.min(end, e.pieceEnd(offset)) - offset;
            parent.retain();
            inflight.enter();
            Target target = e.target();
            Bio clone = parent.derive(op, offset - e.startBytes(), len, dataOffset, flags,
                    new CloneDone(parent, target, e.startBytes(), dataOffset));
            if (apply(clone, target.map(clone))) {
                requeue(parent, new Range(parent, op, offset, len, dataOffset, flags));
            }
            offset += len;
            dataOffset += len;
        }
    }

    /** Carries out a target's map decision; true if the target asked for the bio to be pushed back. */
    private static boolean apply(Bio clone, MapResult result) {
        switch (result) {
            case MapResult.Remapped r -> {
                r.device().submit(clone.remap(r.offset()));
                clone.endio();
            }
            case MapResult.Submitted s -> { }
            case MapResult.Completed c -> clone.endio(c.status());
            case MapResult.Requeue q -> {
                return true;
            }
        }
        return false;
    }

    /**
     * A pushed-back clone is dropped and stops counting as in flight; {@code parent}'s reference
     * moves to {@code h}, held for resume during a noflush suspend, or fails.
     */
    private void requeue(Bio parent, Held h) {
        inflight.exit();
        if (noflushSuspending) {
            synchronized (holdLock) {
                held.add(h);
            }
        } else {
            parent.endio(IoStatus.IO_ERROR);
        }
    }

    /**
     * Ends a clone: the target's end-io, then one reference on the original, then the count. Knows
     * where the clone came from, so that an end-io asking for a push-back can hold its range.
     */
    private final class CloneDone implements BioCallback {
        private final Bio parent;
        private final Target target;
        private final long targetStart;
        private final long dataOffset;

        CloneDone(Bio parent, Target target, long targetStart, long dataOffset) {
            this.parent = parent;
            this.target = target;
            this.targetStart = targetStart;
            this.dataOffset = dataOffset;
        }

        @Override
        public void done(Bio clone) {
            IoStatus s = clone.status();
            if (target != null) {
                switch (target.endIo(clone, s)) {
                    case EndIo.Done d -> s = d.status();
                    case EndIo.Requeue q -> {
                        requeue(parent, clone.op() == BioOp.FLUSH ? new WholeBio(parent)
                                : new Range(parent, clone.op(), targetStart + clone.offset(), clone.length(),
                                        dataOffset, clone.flags()));
                        return;
                    }
                }
            }
            parent.endio(s);
            inflight.exit();
        }
    }

    private final class FlushPaths implements EmptyFlush.Paths {
        @Override
        public void toDevice(BlockDevice device, Bio flush) {
            flush.retain();
            inflight.enter();
            device.submit(flush.derive(BioOp.FLUSH, 0, 0, 0, BioFlags.NONE, new CloneDone(flush, null, 0, 0)));
        }

        @Override
        public void throughTarget(Table.Entry target, int index, Bio flush) {
            flush.retain();
            inflight.enter();
            Target t = target.target();
            Bio clone = flush.derive(BioOp.FLUSH, 0, 0, 0, BioFlags.NONE, new CloneDone(flush, t, 0, 0));
            if (apply(clone, t.mapFlush(clone, index))) {
                requeue(flush, new WholeBio(flush));
            }
        }
    }

    /* ---- Held I/O ---- */

    /** I/O waiting for resume; each holds one reference on its bio. */
    private sealed interface Held {}

    /** A bio as submitted to this device. */
    private record WholeBio(Bio bio) implements Held {}

    /** Part of a bio, already past flush handling. */
    private record Range(Bio parent, BioOp op, long offset, long length, long dataOffset, BioFlags flags)
            implements Held {}

    private void hold(Held h) {
        boolean gone;
        synchronized (holdLock) {
            gone = removed;
            if (!gone && blocked) {
                held.add(h);
                return;
            }
        }
        if (gone) {
            fail(h);
        } else {
            submitHeld(h); // resumed between the caller's check and ours
        }
    }

    /** Sends held I/O through the gate: mapped by the live table, or held again. */
    private void submitHeld(Held h) {
        inflight.enter();
        try {
            if (blocked) {
                hold(h);
                return;
            }
            Table t = live;
            switch (h) {
                case WholeBio w -> route(t, w.bio());
                case Range r -> {
                    if (t == null) {
                        r.parent().endio(IoStatus.IO_ERROR);
                    } else {
                        mapRange(t, r.parent(), r.op(), r.offset(), r.length(), r.dataOffset(), r.flags());
                        r.parent().endio();
                    }
                }
            }
        } finally {
            inflight.exit();
        }
    }

    private static void fail(Held h) {
        switch (h) {
            case WholeBio w -> w.bio().endio(IoStatus.IO_ERROR);
            case Range r -> r.parent().endio(IoStatus.IO_ERROR);
        }
    }

    /** Unblocks I/O and takes what was held, for the caller to replay once it dropped {@link #control}. */
    private List<Held> unblock() {
        synchronized (holdLock) {
            blocked = false;
            List<Held> out = held;
            held = new ArrayList<>();
            return out;
        }
    }

    private void replay(List<Held> list) {
        for (Held h : list) {
            submitHeld(h);
        }
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
            Table t = Table.build(table, lookup, config, this, owner);
            Table old = inactive;
            inactive = t;
            if (old != null) {
                old.close();
            }
        } finally {
            control.unlock();
        }
    }

    /** Drops the inactive table ({@code dmsetup clear}). */
    public void clear() {
        control.lock();
        try {
            checkPresent();
            Table old = inactive;
            inactive = null;
            if (old != null) {
                old.close();
            }
        } finally {
            control.unlock();
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
        List<Held> abandoned = null;
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
            replay(abandoned);
            throw new DmException("suspend of '" + name() + "' abandoned: " + inflight.count()
                    + " I/Os still in flight " + (Thread.currentThread().isInterrupted() ? "when interrupted" : "after " + timeout));
        }
    }

    /**
     * Caller holds {@link #control}. Returns null once suspended; if the wait timed out or was
     * interrupted, undoes the presuspend and returns the held I/O, to replay after unlocking.
     */
    private List<Held> suspendLocked(boolean noflush, long timeoutNanos) {
        Table t = live;
        noflushSuspending = noflush;
        try {
            if (t != null) {
                t.presuspend(noflush);
            }
            synchronized (holdLock) {
                blocked = true;
            }
            Plug.flushCurrent(); // our own plugged bios may be among those in flight
            boolean drained;
            try {
                drained = inflight.awaitZero(timeoutNanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                drained = false;
            }
            if (!drained) {
                if (t != null) {
                    t.presuspendUndo();
                }
                return unblock();
            }
            if (t != null) {
                t.postsuspend();
            }
            state = DeviceInfo.State.SUSPENDED;
            return null;
        } finally {
            noflushSuspending = false;
        }
    }

    /**
     * Resumes ({@code dmsetup resume}): if a table was loaded, suspends first if needed, swaps it
     * in (the event number goes up, the old table is closed), then lets held I/O go through it.
     *
     * @throws TableException if a target of the table to be live refuses to resume; the device
     *         stays suspended and keeps both tables
     */
    public void resume() throws TableException {
        List<Held> replay;
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
        replay(replay);
    }

    private List<Held> resumeLocked(boolean noflush) throws TableException {
        Table next = inactive;
        if (next != null && state == DeviceInfo.State.ACTIVE) {
            List<Held> abandoned = suspendLocked(noflush, NO_TIMEOUT);
            if (abandoned != null) {
                replay(abandoned);
                throw new DmException("resume of '" + name() + "' was interrupted while suspending");
            }
        }
        if (next != null) {
            next.preresume();
            Table old = live;
            live = next;
            inactive = null;
            events.incrementAndGet();
            if (old != null) {
                old.close();
            }
        } else if (live != null) {
            live.preresume();
        }
        if (live != null) {
            live.resume();
        }
        state = DeviceInfo.State.ACTIVE;
        return unblock();
    }

    /**
     * For a forced remove: swaps in a table of one {@code error} target of the same size (through a
     * noflush suspend, so I/O a target pushes back ends in the error table), so every later I/O
     * fails while users let go. Any loaded table is dropped.
     */
    public void replaceWithErrorTable() {
        List<Held> replay;
        control.lock();
        try {
            checkPresent();
            Table current = live;
            long sectors = current == null ? 0 : current.sizeSectors();
            if (sectors == 0) {
                return;
            }
            if (config.registry().find("error") == null) {
                throw new DmException("the target registry has no 'error' target");
            }
            Table errors = Table.build(new TableSpec(List.of(new TableSpec.Line(1, 0, sectors, "error", List.of()))),
                    name -> null, config, this, owner);
            Table old = inactive;
            inactive = errors;
            if (old != null) {
                old.close();
            }
            replay = resumeLocked(true);
        } catch (TableException e) {
            throw new DmException("cannot build the error table: " + e.getMessage(), e);
        } finally {
            control.unlock();
        }
        replay(replay);
    }

    /**
     * Removes the device: suspends it if needed, drops both tables (closing their targets) and
     * fails held and later I/O. Whether it may go (open, exported, used by another object) is the
     * caller's decision; see {@link #replaceWithErrorTable()} for forcing.
     */
    public void remove() {
        List<Held> failed;
        control.lock();
        try {
            if (removed) {
                return;
            }
            if (state == DeviceInfo.State.ACTIVE) {
                List<Held> abandoned = suspendLocked(true, NO_TIMEOUT);
                if (abandoned != null) {
                    replay(abandoned);
                    throw new DmException("remove of '" + name() + "' was interrupted while suspending");
                }
            }
            synchronized (holdLock) {
                removed = true;
                failed = held;
                held = new ArrayList<>();
            }
            for (Table t : new Table[] {live, inactive}) {
                if (t != null) {
                    t.close();
                }
            }
            live = null;
            inactive = null;
            state = DeviceInfo.State.REMOVED;
        } finally {
            control.unlock();
        }
        failed.forEach(MappedDevice::fail);
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
            Table t = live;
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
        Table t = live;
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
        Table t = live;
        return t == null ? "" : t.text();
    }

    /** The inactive table as {@code dmsetup table --inactive} prints it; "" without one. */
    public String inactiveTableText() {
        Table t = inactive;
        return t == null ? "" : t.text();
    }

    /** The live table's status as {@code dmsetup status} prints it; "" without one. */
    public String statusText() {
        Table t = live;
        return t == null ? "" : t.statusText(StatusType.INFO);
    }

    /** Per-target status lines of the live table. */
    public List<TargetStatus> status(StatusType type) {
        Table t = live;
        return t == null ? List.of() : t.status(type);
    }

    /** The live table, or null. */
    public Table liveTable() {
        return live;
    }

    /** The inactive table, or null. */
    public Table inactiveTable() {
        return inactive;
    }

    /** I/O submitted or mapped and not yet complete (held I/O not included). */
    public long inFlight() {
        return inflight.count();
    }

    /** The strategy empty flushes use. */
    public EmptyFlush emptyFlush() {
        return emptyFlush;
    }

    @Override
    public long sizeBytes() {
        Table t = live;
        return t == null ? 0 : t.sizeBytes();
    }

    @Override
    public DeviceLimits limits() {
        Table t = live;
        return t == null ? NO_TABLE_LIMITS : t.limits();
    }

    /** The live table's devices (sysfs {@code slaves}). */
    @Override
    public Collection<BlockDevice> lowerDevices() {
        Table t = live;
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
            return noflushSuspending;
        }
    }

    /* ---- Checks ---- */

    private void checkPresent() {
        if (removed) {
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
