package io.blockwork.array.app;

import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdDetail;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.MemberState;
import io.blockwork.engine.md.ParityStatus;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.array.store.ArrayMemberEntity;
import io.blockwork.array.store.ArrayEntity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * An array as the API shows it: its stored configuration, and {@code mdadm --detail} of its live
 * engine object when it is assembled.
 *
 * @param layout raid10's layout name ({@code n2}), raid4/5/6's ({@code left-symmetric}), else null
 * @param stripeCacheSize raid4/5/6's stripe cache size in stripe heads, else null
 * @param journal raid4/5/6's write-journal device, else null
 * @param speedMinBytes resync/recovery floor, bytes per second
 * @param speedMaxBytes resync/recovery ceiling, bytes per second
 * @param detail null while the array is not assembled
 * @param members the live array's members, then stored members it does not have (failed or missing
 *                before the last start); only the stored ones while it is not assembled
 * @param resyncPending the initial resync has not finished
 * @param metadata {@code 1.2} or {@code none}
 * @param uuid the array uuid (mdadm's form); null without metadata
 * @param bitmapChunkBytes the write-intent bitmap's chunk; null without a bitmap
 * @param node the node whose instance assembles and changes the array
 * @param joinCandidates devices that may join the live array now (spare or replacement), by name
 */
public record ArrayView(String name, String level, int raidDevices, long chunkBytes, String layout, Integer layoutCode,
                        Integer stripeCacheSize, String journal, String flushStrategy, String barrierStrategy, long speedMinBytes, long speedMaxBytes,
                        boolean resyncPending, ObjectState state, Instant createdAt, MdDetail detail,
                        List<MemberView> members, String metadata, String uuid, Long bitmapChunkBytes, String node,
                        List<String> joinCandidates) {

    /** raid4/5/6's stripe cache and write paths of the live array; null otherwise. */
    public ParityStatus parity() {
        return detail == null ? null : detail.parity();
    }

    /** The view of a stored array, with {@code array}'s live detail when it is assembled here (else null). */
    static ArrayView of(ArrayEntity r, ObjectState state, MdArray array, List<String> joinCandidates) {
        MdDetail detail = array == null ? null : array.detail();
        List<MemberView> members = new ArrayList<>();
        if (detail != null) {
            detail.members().forEach(m -> members.add(MemberView.live(m)));
        }
        for (ArrayMemberEntity m : r.getMembers()) {
            if (detail == null || detail.members().stream().noneMatch(d -> m.getDeviceName().equals(d.device()))) {
                members.add(MemberView.stored(m));
            }
        }
        Integer code = r.getLayoutCode();
        return new ArrayView(r.getName(), r.getLevel(), r.getRaidDevices(), r.getChunkBytes(),
                MdArraySpec.layoutLabel(MdLevel.fromLabel(r.getLevel()), code), code, r.getStripeCacheSize(),
                r.getJournalDevice(),
                r.getFlushStrategy(), r.getBarrierStrategy(), r.getSpeedMinKiBps() * 1024, r.getSpeedMaxKiBps() * 1024,
                array != null ? array.resyncPending() : r.isResyncPending(), state, r.getCreatedAt(), detail,
                List.copyOf(members), r.getMetadata(), r.getUuid(), r.getBitmapChunkBytes(), r.getNode(),
                List.copyOf(joinCandidates));
    }

    /**
     * One member.
     *
     * @param number md's device number (order of joining); -1 for an empty slot and for members the
     *               live array does not have
     * @param slot the raid slot it fills (or, for a failed or missing one, filled); -1 for spares
     * @param device null for an empty slot
     * @param role active, replacement, spare or none
     * @param state in_sync, rebuilding, spare, faulty, removed (an empty slot) or missing (not there
     *              at the last start)
     * @param stateText mdadm's words ("active sync", "spare rebuilding")
     * @param rebuiltBytes progress of a rebuilding member
     * @param faultReason why a faulty or missing member is out
     * @param recovery for a rebuilding member: {@code bitmap} (only the chunks the write-intent bitmap
     *                 marks, a re-add) or {@code full}; null otherwise
     * @param writeMostly md's write-mostly flag: raid1 reads avoid the member
     */
    public record MemberView(int number, int slot, String device, String role, String state, String stateText,
                             boolean replacement, long rebuiltBytes, String faultReason, String recovery,
                             boolean writeMostly) {

        static MemberView live(MdDetail.MemberDetail m) {
            String recovery = m.state() != MemberState.REBUILDING ? null : m.throughBitmap() ? "bitmap" : "full";
            return new MemberView(m.number(), m.raidDevice(), m.device(), m.role().label(), m.state().label(),
                    m.stateText(), m.replacement(), m.rebuiltBytes(), m.faultReason(), recovery, m.writeMostly());
        }

        /** A member as stored, for arrays that are not assembled and members the live array does not have. */
        static MemberView stored(ArrayMemberEntity m) {
            String s = m.getState();
            String role = switch (s) {
                case MemberRows.IN_SYNC, MemberRows.REBUILDING -> m.isReplacement() ? "replacement" : "active";
                case MemberRows.SPARE -> "spare";
                default -> "none";
            };
            String text = switch (s) {
                case MemberRows.IN_SYNC -> "active sync";
                case MemberRows.REBUILDING -> "spare rebuilding";
                default -> s;
            };
            return new MemberView(-1, m.getSlot() == null ? -1 : m.getSlot(), m.getDeviceName(), role, s, text,
                    m.isReplacement(), 0, m.getFaultReason(), null, m.isWriteMostly());
        }
    }
}
