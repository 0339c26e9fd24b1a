package io.blockwork.shared.event;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.snapshot.SnapshotStatus;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdDetail;
import io.blockwork.engine.md.MemberState;
import io.blockwork.engine.md.SyncAction;
import io.blockwork.shared.device.RegisteredDevice;
import java.util.ArrayList;
import java.util.List;

/**
 * A device's health in one word and why: what the dashboard colours and what {@code state} events
 * report when it changes. The words: {@code ok}, {@code degraded}, {@code recovering},
 * {@code resyncing}, {@code checking}, {@code suspended}, {@code faulty} (a disk with injected
 * faults), {@code invalid} and {@code overflow} (a snapshot whose COW space filled up),
 * {@code failed} (an array that lost data, a merge that failed, or a device start-up could not
 * assemble) and {@code blocked} (something it needs is not active).
 *
 * <p>Reasons name members and causes but no figures that move on their own (no percentages), so
 * the pair only changes when the health does.
 *
 * @param reason null when {@code ok}
 */
public record Health(String state, String reason) {

    public static final Health OK = new Health("ok", null);

    public boolean ok() {
        return this.equals(OK);
    }

    /** The health of a registered device: live or not, whatever its kind. */
    public static Health of(RegisteredDevice entry) {
        if (!entry.live()) {
            return new Health(entry.state().actual(), entry.state().reason());
        }
        return of(entry.device());
    }

    static Health of(BlockDevice device) {
        return switch (device) {
            case MdArray a -> of(a.detail());
            case MappedDevice m -> m.state() == DeviceInfo.State.SUSPENDED
                    ? new Health("suspended", "suspended: I/O waits until it is resumed")
                    : Snapshots.status(m).map(Health::of).orElse(OK);
            case Disk d -> faults(d.faults());
            default -> OK;
        };
    }

    /** A snapshot's, or a merging volume's, from its status line. */
    static Health of(SnapshotStatus s) {
        return switch (s.state()) {
            case VALID -> OK;
            case INVALID -> new Health("invalid", "its COW space filled up: the snapshot is lost and fails all I/O");
            case OVERFLOW -> new Health("overflow", "its COW space is full: writes to it fail, reads still work");
            case MERGE_FAILED -> new Health("failed", "the merge into the volume failed");
        };
    }

    private static Health faults(DiskFaults f) {
        if (!f.any()) {
            return OK;
        }
        List<String> what = new ArrayList<>();
        if (f.failReads()) {
            what.add("reads");
        }
        if (f.failWrites()) {
            what.add("writes");
        }
        if (f.failFlushes()) {
            what.add("flushes");
        }
        return new Health("faulty", "fault injection: " + String.join(", ", what) + " fail");
    }

    /** An array's health from {@code mdadm --detail}. */
    static Health of(MdDetail d) {
        if (d.inactiveReason() != null) {
            return new Health("failed", d.inactiveReason());
        }
        List<String> out = new ArrayList<>();
        String rebuilding = null;
        for (MdDetail.MemberDetail m : d.members()) {
            if (m.state() == MemberState.FAULTY) {
                out.add(m.device() + " faulty" + (m.faultReason() == null ? "" : " (" + m.faultReason() + ")"));
            } else if (m.state() == MemberState.REBUILDING) {
                rebuilding = m.device();
            }
        }
        int missing = d.raidDevices() - d.activeDevices();
        String members = d.activeDevices() + " of " + d.raidDevices() + " members in sync"
                + (out.isEmpty() ? "" : "; " + String.join(", ", out));
        if (rebuilding != null) {
            return new Health("recovering", "rebuilding " + rebuilding + "; " + members);
        }
        if (missing > 0 && d.state().contains(io.blockwork.engine.md.ArrayState.DEGRADED)) {
            return new Health("degraded", members);
        }
        SyncAction action = d.sync().action();
        return switch (action) {
            case RESYNC -> new Health("resyncing", "the copies are being made to agree (resync)");
            case CHECK -> new Health("checking", "check requested: reading every copy");
            case REPAIR -> new Health("checking", "repair requested: rewriting copies that differ");
            case RECOVER, IDLE -> out.isEmpty() ? OK : new Health("ok", String.join(", ", out) + " (not in a slot)");
        };
    }
}
