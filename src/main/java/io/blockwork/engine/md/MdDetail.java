package io.blockwork.engine.md;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code mdadm --detail} as a record, for the API to serialise as it is.
 *
 * @param level {@code raid10}, ...
 * @param sizeBytes the array's size
 * @param usedDevSizeBytes bytes of each member in use (for linear: of the smallest)
 * @param chunkBytes chunk (raid0, raid10, raid4/5/6), rounding (linear), 0 (raid1)
 * @param layout raid10's short layout name ({@code n2}), raid4/5/6's ({@code left-symmetric}), or null
 * @param layoutCode md's numeric layout, 0 for levels without one
 * @param state the state words; {@link #stateText()} joins them as mdadm does
 * @param inactiveReason why the array serves no I/O, or null
 * @param sync the daemon's progress (IDLE for levels without one)
 * @param lastSyncAction md's last_sync_action: the sync action that ran most recently
 * @param mismatchSectors md's mismatch_cnt after the last resync, check or repair
 * @param members every slot in order (empty ones as REMOVED), then spares and failed members
 * @param metadata what the members carry
 * @param recoveredBytes bytes recovery copied onto members since the array started (windows a
 *        bitmap re-add skipped are not counted)
 * @param parity raid4/5/6's stripe cache and write paths; null for the other levels
 * @param journal raid4/5/6's write journal; null without one
 */
public record MdDetail(String name, String level, long sizeBytes, long usedDevSizeBytes, long chunkBytes,
                       String layout, int layoutCode, int raidDevices, int totalDevices, int activeDevices,
                       int workingDevices, int failedDevices, int spareDevices, Set<ArrayState> state,
                       String inactiveReason, SyncStatus sync, SyncAction lastSyncAction, long mismatchSectors, MdStrategies strategies,
                       SpeedLimits speed, List<MemberDetail> members, Metadata metadata, long recoveredBytes,
                       ParityStatus parity, JournalStatus journal) {

    /**
     * The array's on-disk metadata, as mdadm --detail shows it.
     *
     * @param format {@code none} or {@code 1.2}
     * @param uuid the array uuid (mdadm's form); null without metadata
     * @param events the superblocks' event count; 0 without metadata
     * @param dataOffsetBytes where the members' data starts
     * @param bitmap the internal bitmap; null for none
     */
    public record Metadata(String format, String uuid, long events, long dataOffsetBytes, Bitmap bitmap) {}

    /**
     * The write-intent bitmap ({@code mdadm --examine-bitmap}).
     *
     * @param chunkBytes bytes each bit stands for
     * @param chunks bits in all
     * @param dirtyChunks bits set
     * @param neededChunks chunks a resync or bitmap re-add would copy
     * @param eventsCleared the event count when bits were last cleared
     * @param daemonSleepSeconds an idle chunk's bit clears after one to two of these
     */
    public record Bitmap(long chunkBytes, int chunks, int dirtyChunks, int neededChunks, long eventsCleared,
                         int daemonSleepSeconds) {}

    /**
     * One row of mdadm --detail's device table.
     *
     * @param number md's device number (order of joining); -1 for an empty slot
     * @param raidDevice the slot, or -1 for spares and failed members
     * @param device the device's name; null for an empty slot
     * @param role what the member is for
     * @param replacement true for a member rebuilding beside another ({@code --replace})
     * @param rebuiltBytes how much of a rebuilding member is done
     * @param faultReason why a failed member failed
     * @param throughBitmap a rebuilding member copies only the chunks the write-intent bitmap marks (a re-add)
     * @param writeMostly reads go to this member only when no other can serve them (mdadm's write-mostly)
     */
    public record MemberDetail(int number, int raidDevice, String device, MemberRole role, MemberState state, boolean replacement,
                               long rebuiltBytes, String faultReason, boolean throughBitmap,
                               boolean writeMostly) {
        /** mdadm's words for the State column ("active sync", "spare rebuilding", "faulty", "removed"). */
        public String stateText() {
            return state.mdadmText() + (replacement ? " (replacement)" : "");
        }
    }

    /** "clean, degraded, recovering", as mdadm prints it. */
    public String stateText() {
        return state.stream().map(ArrayState::label).collect(Collectors.joining(", "));
    }

    static MdDetail of(MdArray array) {
        MdArraySpec spec = array.spec();
        MemberSet set = array.members();
        MemberSet.Table t = set.table();
        List<MemberDetail> rows = new ArrayList<>();
        int active = 0;
        for (int i = 0; i < t.width(); i++) {
            Member m = t.slots()[i];
            if (m == null) {
                rows.add(new MemberDetail(-1, i, null, MemberRole.NONE, MemberState.REMOVED, false, 0, null, false, false));
            } else {
                rows.add(row(m));
                active += m.state() == MemberState.IN_SYNC ? 1 : 0;
            }
            if (t.replacements()[i] != null) {
                rows.add(row(t.replacements()[i]));
            }
        }
        int spares = 0;
        int failed = 0;
        for (Member m : set.all()) {
            if (m.state() == MemberState.SPARE) {
                rows.add(row(m));
                spares++;
            } else if (m.state() == MemberState.FAULTY) {
                rows.add(row(m));
                failed++;
            }
        }
        int total = set.all().size();
        SyncDaemon d = array.daemon();
        SyncStatus sync = d == null ? SyncStatus.IDLE : d.status();
        String reason = array.inactiveReason();
        Set<ArrayState> state = EnumSet.noneOf(ArrayState.class);
        if (reason != null) {
            state.add(ArrayState.INACTIVE);
        } else {
            state.add(array.recentlyWritten() ? ArrayState.ACTIVE : ArrayState.CLEAN);
            if (set.degraded() > 0 && spec.level().redundant()) {
                state.add(ArrayState.DEGRADED);
            }
            switch (sync.action()) {
                case RESYNC, REPAIR -> state.add(ArrayState.RESYNCING);
                case RECOVER -> state.add(ArrayState.RECOVERING);
                case CHECK -> state.add(ArrayState.CHECKING);
                case IDLE -> { }
            }
        }
        Personality p = array.personality();
        boolean paused = d != null && d.paused();
        return new MdDetail(array.name(), spec.level().label(), p.sizeBytes(), p.usedMemberBytes(), spec.chunkBytes(),
                spec.layoutLabel(), spec.layoutCode() == null ? 0 : spec.layoutCode(),
                t.width(), total, active, total - failed, failed, spares, Collections.unmodifiableSet(state), reason,
                paused && !sync.paused() ? sync.paused(true) : sync, d == null ? SyncAction.IDLE : d.lastAction(),
                d == null ? 0 : d.mismatchSectors(),
                spec.strategies(), d == null ? spec.speed() : d.limits(), List.copyOf(rows), metadata(array),
                d == null ? 0 : d.recoveredBytes(), array.parityStatus(), array.journalStatus());
    }

    private static Metadata metadata(MdArray array) {
        var spec = array.spec().metadata();
        ArrayMetadata m = array.metadata();
        var b = m.bitmap();
        Bitmap bitmap = b == null ? null : new Bitmap(b.chunkBytes(), b.chunks(), b.dirtyChunks(), b.neededChunks(),
                b.superblock().eventsCleared(), b.daemonSleepSeconds());
        return new Metadata(spec.format().label(), spec.uuid() == null ? null : spec.uuid().toString(), m.events(),
                array.dataOffset(), bitmap);
    }

    private static MemberDetail row(Member m) {
        long rebuilt = m.state() == MemberState.REBUILDING ? m.rebuilt() : 0;
        boolean inSlot = m.state() == MemberState.IN_SYNC || m.state() == MemberState.REBUILDING;
        MemberRole role = m.state() == MemberState.SPARE ? MemberRole.SPARE
                : !inSlot ? MemberRole.NONE : m.replacement() ? MemberRole.REPLACEMENT : MemberRole.ACTIVE;
        return new MemberDetail(m.number(), inSlot ? m.slot() : -1, m.name(), role, m.state(), m.replacement(), rebuilt,
                m.faultReason(), m.state() == MemberState.REBUILDING && m.bitmapRecovery(), m.writeMostly());
    }
}
