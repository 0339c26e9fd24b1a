package io.blockwork.engine.md;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.md.metadata.MdUuid;

/**
 * One device attached to an array (md's rdev). Its state and rebuild progress are read on the I/O
 * path without locks; they change only under the {@link MemberSet} lock, and the I/O path copes
 * with seeing a change a moment late (a write to a member that just failed is harmless).
 */
final class Member {

    private final BlockDevice device;
    /** md's desc_nr (the superblock's dev_number): the order in which devices joined the array. */
    private final int number;
    /** Where this member's data starts on its device (md's data_offset); 0 without metadata. */
    private final long dataOffset;
    /** The superblock's device_uuid; null without metadata. */
    private final MdUuid uuid;
    private volatile MemberState state;
    /** The raid slot this member fills or rebuilds; -1 for spares and failed members out of a slot. */
    private volatile int slot;
    /** True while rebuilding beside the slot's current member ({@code mdadm --replace}). */
    private volatile boolean replacement;
    /** Bytes of the member rebuilt so far; reads may use a rebuilding member below this. */
    private volatile long rebuilt;
    /** While rebuilding: only chunks the write-intent bitmap marks need copying (a re-add). */
    private volatile boolean bitmapRecovery;
    private volatile String faultReason;
    /**
     * md's write-mostly (mdadm --write-mostly): reads avoid this member while another readable
     * copy exists, as for a leg on a remote machine. Writes go to it as to any member.
     */
    private volatile boolean writeMostly;

    Member(BlockDevice device, int number, MemberState state, int slot) {
        this(device, number, state, slot, 0, null);
    }

    Member(BlockDevice device, int number, MemberState state, int slot, long dataOffset, MdUuid uuid) {
        this.device = device;
        this.number = number;
        this.state = state;
        this.slot = slot;
        this.dataOffset = dataOffset;
        this.uuid = uuid;
        this.rebuilt = state == MemberState.IN_SYNC ? Long.MAX_VALUE : 0;
    }

    BlockDevice device() {
        return device;
    }

    String name() {
        return device.name();
    }

    int number() {
        return number;
    }

    MemberState state() {
        return state;
    }

    int slot() {
        return slot;
    }

    boolean replacement() {
        return replacement;
    }

    long rebuilt() {
        return rebuilt;
    }

    long dataOffset() {
        return dataOffset;
    }

    /** Bytes of the device from the data offset on. */
    long dataBytes() {
        return device.sizeBytes() - dataOffset;
    }

    MdUuid uuid() {
        return uuid;
    }

    boolean bitmapRecovery() {
        return bitmapRecovery;
    }

    String faultReason() {
        return faultReason;
    }

    boolean writeMostly() {
        return writeMostly;
    }

    /** Not a state transition: may change at any time, the I/O path reads it afresh for each read. */
    void writeMostly(boolean on) {
        writeMostly = on;
    }

    /** True if {@code [addr, addr+len)} of this member holds current data. */
    boolean readable(long addr, long len) {
        MemberState s = state;
        return s == MemberState.IN_SYNC || (s == MemberState.REBUILDING && addr + len <= rebuilt);
    }

    /** True if writes must reach this member: it holds current data or is being rebuilt. */
    boolean writable() {
        MemberState s = state;
        return s == MemberState.IN_SYNC || s == MemberState.REBUILDING;
    }

    /* ---- Transitions: called with the MemberSet lock held ---- */

    void rebuildInto(int newSlot, boolean asReplacement) {
        rebuildInto(newSlot, asReplacement, 0, false);
    }

    /** Rebuilding into {@code newSlot} from member byte {@code from}; with {@code throughBitmap} only dirty chunks. */
    void rebuildInto(int newSlot, boolean asReplacement, long from, boolean throughBitmap) {
        slot = newSlot;
        replacement = asReplacement;
        rebuilt = from;
        bitmapRecovery = throughBitmap;
        state = MemberState.REBUILDING;
    }

    /** A replacement whose slot lost its member fills the slot itself. */
    void promote() {
        replacement = false;
    }

    void inSync() {
        rebuilt = Long.MAX_VALUE;
        replacement = false;
        bitmapRecovery = false;
        state = MemberState.IN_SYNC;
    }

    void faulty(String reason) {
        faultReason = reason;
        state = MemberState.FAULTY;
    }

    /** Called by the sync daemon only, after a window has been written. */
    void rebuiltTo(long bytes) {
        rebuilt = bytes;
    }

    void detach() {
        slot = -1;
        replacement = false;
        state = MemberState.REMOVED;
    }

    @Override
    public String toString() {
        return device.name() + "[" + number + "] " + state.label() + (slot >= 0 ? " slot " + slot : "");
    }
}
