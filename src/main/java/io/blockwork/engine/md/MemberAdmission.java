package io.blockwork.engine.md;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.md.metadata.Examination;
import io.blockwork.engine.md.metadata.Superblock;
import io.blockwork.engine.md.metadata.WriteIntentBitmap;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which devices may make an md array and which may join one (mdadm's checks before
 * {@code --create}/{@code --assemble} and {@code --add}/{@code --replace}/{@code --re-add}), and
 * where a device re-added to an array with v1.2 metadata goes, as its superblock says. Checks
 * only: each throws before anything changes, and the array's {@link MemberSet} then makes the
 * change under its own lock.
 */
final class MemberAdmission {

    private MemberAdmission() {}

    /**
     * Where a re-added device goes, from its superblock.
     *
     * @param number its permanent device number (dev_roles index)
     * @param throughBitmap rebuilt through the write-intent bitmap, which still holds every write it missed
     * @param writeMostly its superblock's dev_flags say write-mostly
     */
    record ReAdd(int slot, int number, MemberSet.Placement placement, boolean throughBitmap, boolean writeMostly) {}

    /** The devices an array is made of, in slot order; null for a missing one where {@code allowMissing}. */
    static void checkMembers(MdLevel level, List<? extends BlockDevice> devices, boolean allowMissing) {
        if (devices == null || devices.size() < level.minMembers()) {
            throw new MdArgumentException("members", level.label() + " needs at least " + level.minMembers()
                    + " members, got " + (devices == null ? 0 : devices.size()));
        }
        Map<BlockDevice, Integer> seen = new IdentityHashMap<>();
        for (int i = 0; i < devices.size(); i++) {
            BlockDevice d = devices.get(i);
            if (d == null && (!allowMissing || !level.redundant())) {
                throw new MdArgumentException("members[" + i + "]", "missing; " + level.label() + (allowMissing
                        ? " has no redundancy and cannot start without every member" : " needs a device in every slot"));
            }
            if (d != null && seen.put(d, i) != null) {
                throw new MdArgumentException("members[" + i + "]", d.name() + " is listed twice (also members[" + seen.get(d) + "])");
            }
        }
        if (seen.isEmpty()) {
            throw new MdArgumentException("members", "no member is present");
        }
    }

    static void checkJournal(BlockDevice journal, List<? extends BlockDevice> members) {
        if (journal != null && members.contains(journal)) {
            throw new MdArgumentException("journal", journal.name() + " is also a member");
        }
    }

    /** A device joining {@code array} (spare, replacement, re-added or reattached member). */
    static void checkJoiner(MdArray array, BlockDevice device) {
        if (device == null) {
            throw new MdArgumentException("device", "required");
        }
        String closed = closedToJoiners(array);
        if (closed != null) {
            throw new MdStateException("device", closed);
        }
        String refused = refusal(array, device);
        if (refused != null) {
            throw new MdArgumentException("device", refused);
        }
    }

    /** Whether {@code device} passes {@link #checkJoiner}, decided without an exception (a page lists many). */
    static boolean mayJoin(MdArray array, BlockDevice device) {
        return device != null && closedToJoiners(array) == null && refusal(array, device) == null;
    }

    /** Why the array takes no device now (no redundancy, inactive), or null. */
    private static String closedToJoiners(MdArray array) {
        MdLevel level = array.spec().level();
        if (!level.redundant()) {
            return level.label() + " has no redundancy; members cannot be added";
        }
        String inactive = array.inactiveReason();
        return inactive == null ? null : "the array is inactive (" + inactive + ")";
    }

    /** Why {@code device} itself cannot join (a cycle, its block size, its size), or null. */
    private static String refusal(MdArray array, BlockDevice device) {
        if (builtOn(device, array)) {
            return device.name() + " is built on " + array.name() + "; that would be a cycle";
        }
        int blockSize = array.limits().logicalBlockSize();
        if (device.limits().logicalBlockSize() > blockSize) {
            return device.name() + " has " + device.limits().logicalBlockSize() + "-byte blocks, larger than the array's "
                    + blockSize;
        }
        long dataOffset = array.dataOffset();
        long used = array.personality().usedMemberBytes();
        if (device.sizeBytes() - dataOffset < used) {
            return device.name() + " has " + device.sizeBytes() + " bytes; each member needs " + (used + dataOffset)
                    + (dataOffset > 0 ? " (data offset included)" : "");
        }
        return null;
    }

    private static boolean builtOn(BlockDevice device, BlockDevice target) {
        Deque<BlockDevice> todo = new ArrayDeque<>(List.of(device));
        while (!todo.isEmpty()) {
            BlockDevice d = todo.pop();
            if (d == target) {
                return true;
            }
            todo.addAll(d.lowerDevices());
        }
        return false;
    }

    /**
     * Where {@code device}'s superblock places it in {@code array} (which has v1.2 metadata);
     * refused when it does not place it in a slot of this array.
     */
    static ReAdd reAdd(MdArray array, BlockDevice device) {
        Examination e = Examination.of(device);
        Superblock sb = e.sb();
        if (!e.usable()) {
            throw new MdStateException("device", device.name() + " cannot be re-added: " + e.problem() + "; add it as a spare");
        }
        if (!sb.arrayUuid().equals(array.spec().metadata().uuid())) {
            throw new MdStateException("device", device.name() + " belongs to array " + sb.arrayUuid() + " ('" + sb.shortName()
                    + "'), not this one; add it as a spare");
        }
        int slot = sb.ownRole();
        if (!Superblock.isSlot(slot)) {
            throw new MdStateException("device", device.name() + " was a spare or failed here; add it as a spare");
        }
        WriteIntentBitmap bitmap = array.metadata().bitmap();
        boolean wasInSync = !sb.has(Superblock.FEATURE_RECOVERY_OFFSET) || sb.has(Superblock.FEATURE_RECOVERY_BITMAP);
        boolean throughBitmap = bitmap != null && wasInSync && sb.events() >= bitmap.superblock().eventsCleared();
        // write-mostly also when its superblock's dev_flags say so, as md's validation of a re-added rdev reads them
        return new ReAdd(slot, sb.devNumber(), new MemberSet.Placement(sb.dataOffset() << 9, sb.deviceUuid()),
                throughBitmap, sb.writeMostly());
    }
}
