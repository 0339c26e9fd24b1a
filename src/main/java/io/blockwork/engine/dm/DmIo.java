package io.blockwork.engine.dm;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.Plug;
import java.util.List;

/**
 * The I/O path of one mapped device: bios through the {@link IoGate}, cut into target pieces,
 * mapped, and their completions counted back; and, on that path's terms, a suspend's drain
 * ({@link #suspend}) and the allocation query, asked of the live targets piece by piece.
 *
 * <p>Mapping. A bio is cut at target edges and at each target's chunk
 * ({@link Target#maxIoSectors}), counted from the target's start, as dm's {@code max_io_len}
 * does; when one device-wide boundary expresses all of those, the table advertises it and the
 * block core has split already, so the check costs a comparison. Each piece becomes a clone with
 * target-relative offsets (the kernel's {@code dm_target_io}) holding one reference on the
 * original; its completion passes the target's {@code endIo}, ends that reference, and leaves
 * the gate's count, so suspend waits for I/O inside targets and below them.
 *
 * <p>Flush. An empty flush fans out through the device's {@link EmptyFlush} strategy. PREFLUSH
 * never reaches here: the block core sends the empty flush first and the data, without PREFLUSH,
 * through the gate once the flush completed (so data never slips past a suspend that began
 * meanwhile); FUA rides on every piece.
 *
 * <p>Push-back. A piece a target pushes back ({@link MapResult.Requeue}, {@link EndIo#REQUEUE})
 * stops counting as in flight and, during a noflush suspend, is parked in the gate to be mapped
 * again after resume (through the table live then); otherwise it fails, as in dm.
 */
final class DmIo {

    /** I/O waiting for resume; each holds one reference on its bio. */
    sealed interface Held {}

    /** A bio as submitted to the device. */
    record WholeBio(Bio bio) implements Held {}

    /** Part of a bio, past flush handling: {@code [offset, offset+length)} of the device. */
    record Range(Bio parent, BioOp op, long offset, long length, long dataOffset, BioFlags flags) implements Held {}

    private final EmptyFlush emptyFlush;
    private final IoGate<Held> gate = new IoGate<>();
    private final FlushPaths flushPaths = new FlushPaths();
    /** Written by the owning device under its control lock, while the gate is blocked and drained. */
    private volatile Table live;
    private volatile boolean noflushSuspending;

    DmIo(EmptyFlush emptyFlush) {
        this.emptyFlush = emptyFlush;
    }

    /* ---- Submission ---- */

    /**
     * What the live table's targets say the range holds, target piece by piece (a range no target
     * covers, or a device without a table, is reported as data). A query: it passes no gate.
     */
    void allocation(long offset, long length, Extents out) {
        Table t = live;
        if (t == null) {
            out.add(length, Allocation.DATA);
            return;
        }
        long end = offset + length;
        long pos = offset;
        while (pos < end && !out.stopped()) {
            Table.Entry e = t.find(pos);
            if (e == null) {
                out.add(end - pos, Allocation.DATA);
                return;
            }
            long pieceEnd = Math.min(end, e.endBytes());
            e.target().allocation(pos - e.startBytes(), pieceEnd - pos, out);
            pos = pieceEnd;
        }
    }

    void submit(Bio bio) {
        if (!gate.tryEnter()) {
            hold(new WholeBio(bio));
            return;
        }
        try {
            route(live, bio);
        } finally {
            gate.exit();
        }
    }

    /** Sends held I/O through the gate again: mapped by the live table, or held again. */
    void resubmit(Held h) {
        if (!gate.tryEnter()) {
            hold(h);
            return;
        }
        try {
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
            gate.exit();
        }
    }

    private void hold(Held h) {
        switch (gate.hold(h)) {
            case HELD -> { }
            case OPEN -> resubmit(h); // resumed since tryEnter
            case CLOSED -> fail(h);
        }
    }

    private void route(Table t, Bio bio) {
        if (t == null) {
            bio.endio(IoStatus.IO_ERROR);
        } else if (bio.op() == BioOp.FLUSH) {
            emptyFlush.issue(t, bio, flushPaths);
            bio.endio();
        } else {
            mapRange(t, bio, bio.op(), bio.offset(), bio.length(), 0, bio.flags());
            bio.endio();
        }
    }

    /**
     * Maps {@code [offset, offset+length)} of {@code parent} (its data from {@code dataOffset})
     * through {@code t}, one clone per piece, each holding a reference on {@code parent}; the
     * caller keeps its own. The caller holds a gate ticket.
     */
    private void mapRange(Table t, Bio parent, BioOp op, long offset, long length, long dataOffset, BioFlags flags) {
        long end = offset + length;
        while (offset < end) {
            Table.Entry e = t.find(offset);
            if (e == null) {
                // Held across a swap to a smaller table: no target maps it (dm: EIO).
                parent.retain();
                parent.endio(IoStatus.IO_ERROR);
                return;
            }
            long len = Math.min(end, e.pieceEnd(offset)) - offset;
            Target target = e.target();
            parent.retain();
            gate.enter();
            Bio clone = parent.derive(op, offset - e.startBytes(), len, dataOffset, flags,
                    new CloneDone(parent, target, e.startBytes(), dataOffset));
            if (apply(clone, target.map(clone))) {
                pushBack(parent, new Range(parent, op, offset, len, dataOffset, flags));
            }
            offset += len;
            dataOffset += len;
        }
    }

    /** Carries out a target's map decision; true if the target asked for a push-back. */
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

    /** A pushed-back clone is dropped and leaves the count; {@code parent}'s reference moves to {@code h}, or fails. */
    private void pushBack(Bio parent, Held h) {
        gate.exit();
        if (noflushSuspending) {
            gate.park(h);
        } else {
            parent.endio(IoStatus.IO_ERROR);
        }
    }

    static void fail(Held h) {
        switch (h) {
            case WholeBio w -> w.bio().endio(IoStatus.IO_ERROR);
            case Range r -> r.parent().endio(IoStatus.IO_ERROR);
        }
    }

    /** Ends a clone: the target's end-io, one reference on the original, the count. */
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
                        pushBack(parent, clone.op() == BioOp.FLUSH ? new WholeBio(parent)
                                : new Range(parent, clone.op(), targetStart + clone.offset(), clone.length(),
                                        dataOffset, clone.flags()));
                        return;
                    }
                }
            }
            // The mapped device's own range check passed: a lower device refusing the range (it
            // shrank under the table) is an I/O error of this device, as the kernel's bio_check_eod makes it.
            parent.endio(s == IoStatus.INVALID ? IoStatus.IO_ERROR : s);
            gate.exit();
        }
    }

    private final class FlushPaths implements EmptyFlush.Paths {
        @Override
        public void toDevice(BlockDevice device, Bio flush) {
            flush.retain();
            gate.enter();
            device.submit(flush.derive(BioOp.FLUSH, 0, 0, 0, BioFlags.NONE, new CloneDone(flush, null, 0, 0)));
        }

        @Override
        public void throughTarget(Table.Entry target, int index, Bio flush) {
            flush.retain();
            gate.enter();
            Target t = target.target();
            Bio clone = flush.derive(BioOp.FLUSH, 0, 0, 0, BioFlags.NONE, new CloneDone(flush, t, 0, 0));
            if (apply(clone, t.mapFlush(clone, index))) {
                pushBack(flush, new WholeBio(flush));
            }
        }
    }

    /* ---- For the owning device's lifecycle ---- */

    Table live() {
        return live;
    }

    void live(Table t) {
        live = t;
    }

    boolean noflushSuspending() {
        return noflushSuspending;
    }

    /**
     * Quiesces the path for a suspend, under the owning device's control lock (dm's
     * {@code __dm_suspend}): the live targets' presuspend, then the gate closes so new I/O is held,
     * then a wait of at most {@code timeoutNanos} for the I/O in flight (mapped pieces, and
     * everything inside targets and below them), then postsuspend. Null once drained; if the wait
     * timed out or was interrupted, the presuspend is undone, the gate opened again and the held
     * I/O returned, for the caller to {@link #replay} once it dropped its lock.
     */
    List<Held> suspend(boolean noflush, long timeoutNanos) {
        Table t = live;
        noflushSuspending = noflush;
        try {
            if (t != null) {
                t.presuspend(noflush);
            }
            gate.block();
            Plug.flushCurrent(); // this thread's plugged bios may be among those in flight
            boolean drained;
            try {
                drained = gate.awaitDrained(timeoutNanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                drained = false;
            }
            if (!drained) {
                if (t != null) {
                    t.presuspendUndo();
                }
                return gate.unblock();
            }
            if (t != null) {
                t.postsuspend();
            }
            return null;
        } finally {
            noflushSuspending = false;
        }
    }

    /** Opens the gate; the caller replays the result with {@link #replay} once it dropped its locks. */
    List<Held> unblock() {
        return gate.unblock();
    }

    void replay(List<Held> held) {
        held.forEach(this::resubmit);
    }

    /** Closes the gate for good; the caller fails the result with {@link #fail}. */
    List<Held> close() {
        return gate.close();
    }

    long inFlight() {
        return gate.inFlight();
    }
}
