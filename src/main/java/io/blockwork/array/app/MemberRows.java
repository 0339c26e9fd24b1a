package io.blockwork.array.app;

import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdDetail;
import io.blockwork.array.store.ArrayMemberEntity;
import io.blockwork.array.store.ArrayEntity;
import java.util.function.Function;

/**
 * Writes an array's member rows from its live engine object, which is the truth: every attached
 * member's row is updated in place (or added), rows of members the engine does not have are left
 * alone (they are failed or missing ones from before the last start, or a removal deletes them).
 *
 * <p>What is stored decides what a later start assembles, so a row says {@code in_sync} only when
 * the engine says the member is; a rebuilding member is stored as such and comes back as a spare
 * (rebuilt again in full), a faulty one never comes back into its slot.
 */
final class MemberRows {

    static final String IN_SYNC = "in_sync";
    static final String REBUILDING = "rebuilding";
    static final String SPARE = "spare";
    static final String FAULTY = "faulty";
    static final String MISSING = "missing";

    private MemberRows() {}

    /** @param kindOf the device kind label of a device name, for new rows */
    static void write(ArrayEntity record, MdArray array, Function<String, String> kindOf) {
        MdDetail detail = array.detail();
        for (MdDetail.MemberDetail m : detail.members()) {
            if (m.device() == null) {
                continue;
            }
            ArrayMemberEntity row = record.member(m.device())
                    .orElseGet(() -> record.addMember(m.device(), kindOf.apply(m.device())));
            switch (m.state()) {
                case IN_SYNC -> row.set(IN_SYNC, m.raidDevice(), false, null);
                case REBUILDING -> row.set(REBUILDING, m.raidDevice(), m.replacement(), null);
                case SPARE -> row.set(SPARE, null, false, null);
                // out of its slot: keep the slot it last filled, for the record
                case FAULTY, REMOVED -> row.set(FAULTY, row.getSlot(), false, m.faultReason());
            }
            row.setWriteMostly(m.writeMostly());
        }
        record.setResyncPending(array.resyncPending());
        // Written while the array runs: until a clean stop says otherwise, it may have half-written stripes.
        record.setDirty(array.spec().level().parity());
    }

    /** True if the live array has {@code device} attached, in any state. */
    static boolean attached(MdArray array, String device) {
        return array.detail().members().stream().anyMatch(m -> device.equals(m.device()));
    }
}
