package io.blockwork.engine.md.metadata;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Which devices an array is assembled from, and as what, decided from their superblocks alone
 * the way md and mdadm decide it (Assemble.c, super_1_validate): a pure function of the
 * examinations, for any level.
 *
 * <ol>
 *   <li>Devices without a usable superblock (none, torn, corrupt, too small, unsupported
 *       features) are refused with that reason, and so are devices of another array.
 *   <li>The freshest superblock (highest event count) describes the array; a device whose
 *       geometry disagrees with it is refused.
 *   <li>A device's role is its own superblock's, unless its event count is older than the
 *       freshest: then the freshest's view of it counts (a member failed on the survivors'
 *       superblocks just before a crash has an event count one behind, and is faulty there).
 *   <li>A device in a slot whose events are within one of the freshest is in sync, or rebuilding
 *       from its own recovery offset. One that was in a slot but is older is <em>stale</em>: it
 *       goes back into its slot and is rebuilt, through the bitmap when the bitmap still holds
 *       every write it missed (its events are not older than the bitmap's events_cleared) and it
 *       was in sync (or in a bitmap recovery) when it left; else in full. Others are spares.
 * </ol>
 *
 * @param freshest the superblock with the highest event count; null when no device has a usable one
 * @param decisions one per examined device, in their order
 * @param bitmap the bitmap to load (from the freshest device that has a readable one); null for none
 * @param bits its bits
 */
public record AssemblyPlan(Superblock freshest, List<Decision> decisions, BitmapSuperblock bitmap, byte[] bits) {

    /** What becomes of one device. */
    public enum Kind {
        /** Fills {@code slot}, in sync. */
        IN_SYNC,
        /** Fills {@code slot} (or rebuilds beside it, as a replacement), rebuilding from {@code recoveryBytes}. */
        REBUILDING,
        /** Was in {@code slot} but missed writes: goes back and is rebuilt (through the bitmap if {@code throughBitmap}). */
        STALE,
        /** A spare. */
        SPARE,
        /** Not used; {@code reason} says why. */
        REFUSED
    }

    /**
     * @param slot the slot for IN_SYNC, REBUILDING and STALE; -1 otherwise
     * @param recoveryBytes REBUILDING: member bytes (from the data offset) already rebuilt
     * @param throughBitmap REBUILDING, STALE: only chunks the bitmap marks need copying
     * @param replacement REBUILDING: beside the slot's member ({@code mdadm --replace})
     * @param reason REFUSED: why; STALE, SPARE: a short explanation
     * @param blank REFUSED: the device has no metadata at all
     */
    public record Decision(Kind kind, int slot, long recoveryBytes, boolean throughBitmap, boolean replacement,
                           String reason, boolean blank) {
        static Decision refused(String reason, boolean blank) {
            return new Decision(Kind.REFUSED, -1, 0, false, false, reason, blank);
        }

        static Decision spare(String reason) {
            return new Decision(Kind.SPARE, -1, 0, false, false, reason, false);
        }
    }

    /**
     * Plans the assembly of {@code devices}.
     *
     * @param expected the array these devices should belong to; null to take the one they name
     * @throws MetadataException when {@code expected} is null and the usable devices belong to
     *         different arrays
     */
    public static AssemblyPlan of(List<Examination> devices, MdUuid expected) {
        Map<MdUuid, List<String>> arrays = new LinkedHashMap<>();
        for (Examination e : devices) {
            if (e.usable()) {
                arrays.computeIfAbsent(e.sb().arrayUuid(), u -> new ArrayList<>()).add(e.device());
            }
        }
        if (expected == null && arrays.size() > 1) {
            throw new MetadataException("the devices belong to different arrays: " + arrays.entrySet().stream()
                    .map(a -> String.join(", ", a.getValue()) + " to " + a.getKey()).collect(Collectors.joining("; ")));
        }
        MdUuid uuid = expected != null ? expected : arrays.keySet().stream().findFirst().orElse(null);
        Superblock freshest = null;
        for (Examination e : devices) {
            if (e.usable() && e.sb().arrayUuid().equals(uuid) && (freshest == null || e.sb().events() > freshest.events())) {
                freshest = e.sb();
            }
        }
        List<Decision> decisions = new ArrayList<>();
        Examination bitmapSource = null;
        for (Examination e : devices) {
            Decision d = decide(e, uuid, freshest);
            decisions.add(d);
            if (d.kind() == Kind.IN_SYNC && e.bitmap() != null
                    && (bitmapSource == null || e.sb().events() > bitmapSource.sb().events())) {
                bitmapSource = e;
            }
        }
        resolveConflicts(decisions);
        BitmapSuperblock bitmap = bitmapSource == null ? null : bitmapSource.bitmap();
        for (int i = 0; i < decisions.size(); i++) {
            Decision d = decisions.get(i);
            if (d.kind() == Kind.STALE) {
                Superblock own = devices.get(i).sb();
                boolean wasInSync = !own.has(Superblock.FEATURE_RECOVERY_OFFSET) || own.has(Superblock.FEATURE_RECOVERY_BITMAP);
                boolean usable = bitmap != null && own.events() >= bitmap.eventsCleared() && wasInSync;
                decisions.set(i, new Decision(Kind.STALE, d.slot(), 0, usable, false, usable
                        ? "missed writes (events " + own.events() + " of " + freshest.events() + "); re-added through the bitmap"
                        : "missed writes (events " + own.events() + " of " + freshest.events() + "); rebuilt in full", false));
            }
        }
        return new AssemblyPlan(freshest, decisions, bitmap, bitmapSource == null ? null : bitmapSource.bits());
    }

    private static Decision decide(Examination e, MdUuid uuid, Superblock fresh) {
        if (!e.usable()) {
            return Decision.refused(e.problem(), e.blank());
        }
        Superblock sb = e.sb();
        if (!sb.arrayUuid().equals(uuid)) {
            return Decision.refused("its superblock belongs to array " + sb.arrayUuid() + " ('" + sb.shortName()
                    + "'), not " + uuid, false);
        }
        String differs = geometryDiffers(sb, fresh);
        if (differs != null) {
            return Decision.refused("its superblock describes another incarnation of the array (" + differs
                    + " differs from the freshest member's)", false);
        }
        boolean older = sb.events() < fresh.events();
        int role = older ? fresh.roleOf(sb.devNumber()) : sb.ownRole();
        boolean inMargin = sb.events() + 1 >= fresh.events();
        int ownRole = sb.ownRole();
        if (Superblock.isSlot(role) && inMargin && role < fresh.raidDisks()) {
            if (sb.has(Superblock.FEATURE_RECOVERY_OFFSET)) {
                return new Decision(Kind.REBUILDING, role, sb.recoveryOffset() * 512,
                        sb.has(Superblock.FEATURE_RECOVERY_BITMAP), sb.has(Superblock.FEATURE_REPLACEMENT), null, false);
            }
            return new Decision(Kind.IN_SYNC, role, 0, false, false, null, false);
        }
        if (Superblock.isSlot(ownRole) && ownRole < fresh.raidDisks() && !sb.has(Superblock.FEATURE_REPLACEMENT)) {
            return new Decision(Kind.STALE, ownRole, 0, false, false, null, false);
        }
        return Decision.spare(ownRole == Superblock.ROLE_SPARE ? "a spare" : "recorded as " + roleName(role));
    }

    /** A second claim on a slot loses: it becomes a spare. */
    private static void resolveConflicts(List<Decision> decisions) {
        Map<Integer, Integer> taken = new LinkedHashMap<>();
        Map<Integer, Integer> replacing = new LinkedHashMap<>();
        for (Kind pass : new Kind[] {Kind.IN_SYNC, Kind.REBUILDING, Kind.STALE}) {
            for (int i = 0; i < decisions.size(); i++) {
                Decision d = decisions.get(i);
                if (d.kind() != pass) {
                    continue;
                }
                Map<Integer, Integer> seats = d.replacement() ? replacing : taken;
                if (seats.putIfAbsent(d.slot(), i) != null && pass != Kind.STALE) {
                    decisions.set(i, Decision.spare("slot " + d.slot() + " is filled by another device"));
                }
            }
        }
    }

    private static String geometryDiffers(Superblock a, Superblock b) {
        if (a.level() != b.level()) {
            return "level";
        }
        if (a.layout() != b.layout()) {
            return "layout";
        }
        if (a.chunkSectors() != b.chunkSectors()) {
            return "chunk size";
        }
        if (a.raidDisks() != b.raidDisks()) {
            return "raid devices";
        }
        if (a.size() != b.size()) {
            return "used device size";
        }
        if (a.ctime() != b.ctime()) {
            return "creation time";
        }
        return null;
    }

    private static String roleName(int role) {
        return switch (role) {
            case Superblock.ROLE_FAULTY -> "faulty";
            case Superblock.ROLE_SPARE -> "a spare";
            case Superblock.ROLE_JOURNAL -> "a journal";
            default -> "slot " + role;
        };
    }

    /** Slots with a device in sync or rebuilding (not as a replacement). */
    public int filledSlots() {
        return (int) decisions.stream().filter(d -> (d.kind() == Kind.IN_SYNC || d.kind() == Kind.REBUILDING)
                && !d.replacement()).map(Decision::slot).distinct().count();
    }
}
