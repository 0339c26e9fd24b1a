package io.blockwork.service.array;

import io.blockwork.engine.md.MdDetail;
import io.blockwork.engine.md.ParityStatus;
import io.blockwork.service.assembly.ObjectState;
import java.time.Instant;
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
 */
public record ArrayView(String name, String level, int raidDevices, long chunkBytes, String layout, Integer layoutCode,
                        Integer stripeCacheSize, String journal, String flushStrategy, String barrierStrategy, long speedMinBytes, long speedMaxBytes,
                        boolean resyncPending, ObjectState state, Instant createdAt, MdDetail detail,
                        List<MemberView> members, String metadata, String uuid, Long bitmapChunkBytes, String node) {

    /** raid4/5/6's stripe cache and write paths of the live array; null otherwise. */
    public ParityStatus parity() {
        return detail == null ? null : detail.parity();
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
                             boolean writeMostly) {}
}
