package io.blockwork.engine.dm.snapshot;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * An origin device and the snapshots taken of it (the kernel's {@code struct origin}), found in
 * the {@link Origins} registry by the device. Every write to the origin, whoever sends it (an
 * origin target, a merge target for chunks it has no exception for), comes through
 * {@link #write}: before it may touch a chunk, each active snapshot must have the chunk's old
 * content, or be copying it, in which case the write waits for the copy.
 */
public final class Origin {

    private final Origins registry;
    private final BlockDevice device;
    /** Guarded by the registry's lock: written with it exclusive, read with it shared. */
    final List<Snapshot> snapshots = new ArrayList<>();
    /** Guarded by the registry's control lock: origin targets and snapshots using this entry. */
    int users;

    Origin(Origins registry, BlockDevice device) {
        this.registry = registry;
        this.device = device;
    }

    public BlockDevice device() {
        return device;
    }

    /**
     * An origin write (or discard, or write-zeroes) as the origin target maps it: waits in the
     * COW throttle of a snapshot copying too much, then makes every active snapshot keep the old
     * content of the chunks it touches (the kernel's {@code do_origin}). The bio goes on to the
     * origin at once if every chunk is complete in every snapshot; otherwise it is held and sent
     * again, through here, when the exception it waits for completes.
     */
    public Route write(Bio bio) {
        return write(bio, true);
    }

    Route write(Bio bio, boolean throttled) {
        Lock shared = registry.lock.lockShared();
        try {
            if (throttled) {
                for (Snapshot s : snapshots) {
                    if (s.takesOriginWrites() && !s.admitOriginWrite(() -> retry(bio, true))) {
                        return Route.HELD;
                    }
                }
            }
            Runnable waiter = () -> retry(bio, false);
            for (Snapshot s : snapshots) {
                // Once the write waits on one snapshot (waiter placed), the others still get their copies started.
                if (s.takesOriginWrites()) {
                    waiter = s.originWrite(bio.offset(), bio.end(), waiter);
                }
            }
            if (waiter == null) {
                return Route.HELD;
            }
        } finally {
            shared.unlock();
        }
        return new Route.ToOrigin(bio.offset());
    }

    /** Sends a held origin write through again; on to the origin if nothing holds it now. */
    void retry(Bio bio, boolean throttled) {
        if (write(bio, throttled) instanceof Route.ToOrigin o) {
            device.submit(bio.remap(o.offset()));
            bio.endio();
        }
    }

    /**
     * Makes every active snapshot other than merging ones hold the old content of
     * {@code [from, to)} before a merge writes there (the kernel's {@code origin_write_extent}).
     * Returns false if all of them already do; otherwise {@code waiter} runs when one of the
     * pending copies completes, and the caller should ask again then.
     */
    boolean triggerExceptions(long from, long to, Runnable waiter) {
        Lock shared = registry.lock.lockShared();
        try {
            Runnable w = waiter;
            for (Snapshot s : snapshots) {
                if (s.takesOriginWrites()) {
                    w = s.originWrite(from, to, w);
                }
            }
            return w == null;
        } finally {
            shared.unlock();
        }
    }

    /** The snapshots registered now, for status and tests. */
    public List<Snapshot> snapshots() {
        Lock shared = registry.lock.lockShared();
        try {
            return List.copyOf(snapshots);
        } finally {
            shared.unlock();
        }
    }

    @Override
    public String toString() {
        return "Origin[" + device.name() + "]";
    }
}
