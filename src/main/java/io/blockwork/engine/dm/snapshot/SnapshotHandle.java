package io.blockwork.engine.dm.snapshot;

import java.util.ArrayList;
import java.util.List;

/**
 * One snapshot target's hold on a registered {@link Snapshot}: what the target calls from its
 * lifecycle hooks. Several targets may hold the same snapshot during a handover (a reload, or a
 * switch to {@code snapshot-merge}); one of them owns it, and only the owner's I/O reaches it.
 *
 * <pre>
 *   constructor  Origins.attachSnapshot      (registered; reads the COW if the snapshot is new)
 *   preresume    claim(event)                (takes ownership; refused while another owner is live)
 *   resume       resumed()                   (the snapshot is active: origin writes copy out; a merge starts)
 *   presuspend   presuspend()                (a merge stops, waiting for its step in flight)
 *   postsuspend  postsuspend()               (ownership may now be handed over)
 *   close        close()                     (the last handle unregisters the snapshot)
 * </pre>
 */
public final class SnapshotHandle {

    /** A registered snapshot's holders. Guarded by the registry's control lock, except {@link #owner} reads. */
    static final class Shared {
        final Origins registry;
        final Snapshot snapshot;
        final Origin origin;
        final List<SnapshotHandle> handles = new ArrayList<>(2);
        /** Written under the control lock; read by the I/O paths. */
        volatile SnapshotHandle owner;
        boolean ownerSuspended;

        Shared(Origins registry, Snapshot snapshot, Origin origin) {
            this.registry = registry;
            this.snapshot = snapshot;
            this.origin = origin;
        }

        SnapshotHandle attach(SnapshotSpec spec) {
            SnapshotHandle h = new SnapshotHandle(this, spec);
            handles.add(h);
            return h;
        }

        int users() {
            return handles.size();
        }
    }

    private final Shared shared;
    private final SnapshotSpec spec;
    /** Guarded by the registry's control lock. */
    private boolean closed;

    private SnapshotHandle(Shared shared, SnapshotSpec spec) {
        this.shared = shared;
        this.spec = spec;
    }

    public Snapshot snapshot() {
        return shared.snapshot;
    }

    public Origin origin() {
        return shared.origin;
    }

    /** The table's view of the snapshot (its store code may differ from the store's, P vs PO). */
    public SnapshotSpec spec() {
        return spec;
    }

    /** True while this target owns the snapshot; other holders' I/O fails. */
    public boolean owns() {
        return shared.owner == this;
    }

    /**
     * Takes the snapshot over for this target (the kernel's handover at resume): refused while
     * the current owner is live and not suspended. {@code event} is how the snapshot reports
     * invalidation and overflow to the owner's device from now on.
     */
    public void claim(Runnable event) throws SnapshotException {
        shared.registry.control.lock();
        try {
            SnapshotHandle current = shared.owner;
            if (current == this) {
                return;
            }
            if (current != null && !current.closed && !shared.ownerSuspended) {
                throw new SnapshotException("Unable to perform snapshot handover until source is suspended (the snapshot"
                        + " on COW device '" + spec.cow().name() + "' is live in another table)");
            }
            Merge driver = spec.merge() && shared.snapshot.merge() == null ? new Merge(shared.snapshot, shared.origin) : null;
            shared.snapshot.owner(spec.store().overflowSupported(), event, driver);
            shared.owner = this;
            shared.ownerSuspended = false;
        } finally {
            shared.registry.control.unlock();
        }
    }

    /** The owner's table is live: the snapshot is active, and a merge (re)starts. */
    public void resumed() {
        if (!owns()) {
            return;
        }
        shared.snapshot.activate();
        Merge m = shared.snapshot.merge();
        if (m != null && spec.merge()) {
            m.start();
        }
    }

    /** Stops a running merge, waiting for the step in flight; nothing else stops for a suspend. */
    public void presuspend() {
        Merge m = shared.snapshot.merge();
        if (owns() && m != null) {
            m.stop();
        }
    }

    public void presuspendUndo() {
        resumed();
    }

    public void postsuspend() {
        shared.registry.control.lock();
        try {
            if (shared.owner == this) {
                shared.ownerSuspended = true;
            }
        } finally {
            shared.registry.control.unlock();
        }
    }

    /**
     * Lets go (the target's table is dropped). The last holder unregisters the snapshot, waits
     * for its pending exceptions and stops its copier.
     */
    public void close() {
        shared.registry.control.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            shared.handles.remove(this);
            if (shared.owner == this) {
                shared.owner = null;
            }
            if (!shared.handles.isEmpty()) {
                return;
            }
            shared.registry.unregister(shared);
            // Still under the control lock, so a new table cannot open the COW device before it is quiet.
            Merge m = shared.snapshot.merge();
            if (m != null) {
                m.stop();
            }
            shared.snapshot.awaitPendingDrained();
            shared.snapshot.copier.close();
        } finally {
            shared.registry.control.unlock();
        }
    }
}
