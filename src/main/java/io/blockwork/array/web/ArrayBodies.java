package io.blockwork.array.web;

import io.blockwork.shared.json.NameOrNumber;
import io.blockwork.shared.units.ByteSize;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceNames;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Instant;
import java.util.List;
import tools.jackson.databind.annotation.JsonDeserialize;

/** The JSON shapes of the arrays API. */
final class ArrayBodies {

    private ArrayBodies() {}

    @Schema(description = "A new md array (mdadm --create)")
    record CreateArray(
            @Schema(description = "Unique among all block devices", example = "md0", pattern = DeviceNames.PATTERN)
            @NotNull @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String name,
            @Schema(description = "The personality (mdadm's 0, 1, 10, 4, 5, 6, mirror, stripe are accepted too)",
                    allowableValues = {"linear", "raid0", "raid1", "raid10", "raid4", "raid5", "raid6"}, example = "raid10")
            @NotNull
            String level,
            @Schema(description = "Block devices by name, in slot order; each must be active and unused", example = "[\"d1\",\"d2\",\"d3\",\"d4\"]")
            @NotNull
            List<String> members,
            @Schema(description = "Block devices added as spares once the array exists (redundant levels)")
            List<String> spares,
            @Schema(description = "raid0/raid10/raid4/raid5/raid6: a power of two from 4KiB to 1GiB (default 512KiB); "
                    + "linear: the rounding of each member (default none); raid1 has none", example = "512KiB")
            ByteSize chunk,
            @Schema(description = "raid10: n2 (default), f2, o2, n3, ... or md's number (258, \"0x102\"). raid5: "
                    + "left-symmetric (default, 2), left-asymmetric (0), right-asymmetric (1), right-symmetric (3), "
                    + "parity-first (4), parity-last (5); raid6 also the -6 variants (16-20) and ddf-zero-restart, "
                    + "ddf-N-restart, ddf-N-continue (8-10); raid4 is always parity-last", example = "n2")
            @JsonDeserialize(using = NameOrNumber.class)
            String layout,
            @Schema(description = "raid4/5/6: stripe heads the stripe cache holds (md's stripe_cache_size), 16..32768; "
                    + "default 256", example = "256")
            Integer stripeCacheSize,
            @Schema(description = "raid4/5/6: an active, unused block device for a write journal (mdadm's "
                    + "--write-journal). Every stripe write is logged there before the members are written, which "
                    + "closes the write hole: no resync after an unclean stop, and a member lost then is rebuilt "
                    + "correctly. Without one, an uncleanly stopped parity array resyncs when it starts.", example = "d9")
            String journal,
            @Valid ArrayStrategies strategies,
            @Schema(description = "Resync/recovery speed, per second (default md's 1000KiB..200000KiB)")
            @Valid ArraySpeedLimits speedLimits,
            @Schema(description = "Skip the initial resync (mdadm's --assume-clean): only when the members already "
                    + "agree, e.g. new memory disks, which are all zeros. Default false")
            Boolean assumeClean,
            @Schema(description = "1.2 (default): md's v1.2 superblock on every member (mdadm can --examine them, the "
                    + "array can be assembled from the members alone); the data starts at mdadm's data offset, so "
                    + "the array is a little smaller than the members. none: no superblock, data from offset 0 "
                    + "(arrays made before superblocks)", allowableValues = {"1.2", "none"})
            String metadata,
            @Schema(description = "internal (default for raid1/raid10 with metadata 1.2): md's write-intent bitmap, so "
                    + "a re-added member and an unclean shutdown resync only the dirty chunks; none",
                    allowableValues = {"internal", "none"})
            String bitmap,
            @Schema(description = "The bitmap's chunk: a power of two from 4KiB; default about 1/16384 of the array, "
                    + "between 64KiB and 64MiB", example = "1MiB")
            ByteSize bitmapChunk,
            @Schema(description = "Seconds the bitmap daemon sleeps between passes (mdadm's --delay): a chunk's bit "
                    + "clears once it has been idle one to two of these; 1..3600, default 5", example = "5")
            Integer bitmapDelay,
            @Schema(description = "Members or spares flagged write-mostly (mdadm's --write-mostly): raid1 reads avoid "
                    + "them while another in-sync copy can serve, e.g. an nbd disk on another machine", example = "[\"remote\"]")
            List<String> writeMostly) {
    }

    @Schema(description = "mdadm --assemble from the devices' superblocks alone")
    record AssembleArray(
            @Schema(description = "The array's name; default: the name in its superblocks", example = "md0",
                    pattern = DeviceNames.PATTERN)
            @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String name,
            @Schema(description = "Active, unused block devices that were members (in any order); devices whose "
                    + "superblock is missing, torn or another array's are left out with the reason",
                    example = "[\"d1\",\"d2\"]")
            @NotNull
            List<String> devices,
            @Valid ArrayStrategies strategies,
            @Valid ArraySpeedLimits speedLimits) {
    }

    @Schema(description = "The assembled array and what became of each device")
    record Assembly(Array array, List<AssembledDevice> devices) {
    }

    record AssembledDevice(
            String device,
            @Schema(allowableValues = {"in_sync", "rebuilding", "re-added", "spare", "refused"}) String outcome,
            @Schema(description = "The slot it fills; -1 for spares and refused devices") int slot,
            @Schema(description = "Why it was refused, or how it is rebuilt") String reason) {
    }

    @Schema(description = "The seeds' strategies, fixed at creation")
    record ArrayStrategies(
            @Schema(description = "fanout (default): a flush goes to every member at once; serial: one array flush "
                    + "at a time (before seed 000)", allowableValues = {"fanout", "serial"})
            String flush,
            @Schema(description = "raid10: optimistic (default): a lock-free fast path; locked: every I/O takes the "
                    + "resync lock (before seed 001)", allowableValues = {"optimistic", "locked"})
            String barrier) {
    }

    @Schema(description = "md's speed_limit_min/max: bytes per second, or strings with binary units (\"1MiB\"). "
            + "The daemon never goes above max, and holds back to min while the array serves other I/O.")
    record ArraySpeedLimits(
            @Schema(example = "1MiB") ByteSize min,
            @Schema(example = "200MiB") ByteSize max) {
    }

    @Schema(description = "A device joining the array")
    record AddArrayMember(
            @Schema(description = "An active, unused block device", example = "d5")
            @NotNull
            String device,
            @Schema(description = "spare (default): mdadm --add, rebuilt into an empty slot when there is one; "
                    + "replacement: mdadm --replace, rebuilt beside the in-sync member `replaces`, which it then retires",
                    allowableValues = {"spare", "replacement"})
            String role,
            @Schema(description = "For role replacement: the in-sync member to replace", example = "d2")
            String replaces) {
    }

    @Schema(description = "A sync action (md's sync_action)")
    record ArraySyncRequest(
            @Schema(description = "check: scrub and count mismatches; repair: scrub and rewrite them; idle: end a "
                    + "check or repair; pause: hold resync/recovery/check where it is; resume: continue",
                    allowableValues = {"check", "repair", "idle", "pause", "resume"})
            @NotNull
            String action) {
    }

    @Schema(description = "An md array: its configuration and mdadm --detail of the live array")
    record Array(
            String name,
            @Schema(allowableValues = {"linear", "raid0", "raid1", "raid10", "raid4", "raid5", "raid6"}) String level,
            @Schema(description = "Absent while the array is not assembled") Long sizeBytes,
            @Schema(description = "Bytes of each member in use (mdadm's Used Dev Size); absent while not assembled")
            Long usedDevSizeBytes,
            @Schema(description = "raid0/raid10/raid4/5/6 chunk, linear rounding, 0 for raid1") long chunkBytes,
            @Schema(description = "raid10's layout (n2, f2, o2, or md's number in hex); raid4/5/6's (left-symmetric, ...)")
            String layout,
            @Schema(description = "The layout as md encodes it: raid10's (0x102 = 258 for n2), raid4/5/6's algorithm "
                    + "(2 for left-symmetric)") Integer layoutCode,
            @Schema(description = "raid4/5/6: the stripe cache (size, heads in use, write paths taken); absent otherwise")
            ArrayStripeCache stripeCache,
            @Schema(description = "raid4/5/6: the write journal; absent without one") ArrayJournal journal,
            @Schema(description = "Slots") int raidDevices,
            @Schema(description = "Attached members, spares and failed ones included") Integer totalDevices,
            @Schema(description = "In-sync members in slots") Integer activeDevices,
            Integer workingDevices,
            Integer failedDevices,
            Integer spareDevices,
            @Schema(description = "mdadm's State line as words: clean or active (written in the last 200 ms), degraded, "
                    + "resyncing, recovering, checking, inactive; absent while not assembled")
            List<String> arrayState,
            @Schema(description = "Why the array serves no I/O") String inactiveReason,
            @Schema(description = "Every slot (empty ones as removed), replacements, spares, failed members, then "
                    + "stored members the live array does not have (failed or missing at the last start)")
            List<ArrayMember> members,
            @Schema(description = "Names of the spares") List<String> spares,
            @Schema(description = "The sync daemon; absent for levels without redundancy") ArraySync sync,
            @Schema(description = "md's last_sync_action", allowableValues = {"idle", "resync", "recover", "check", "repair"})
            String lastSyncAction,
            @Schema(description = "md's mismatch_cnt: 512-byte sectors found differing by the last resync, check or repair")
            Long mismatchCount,
            @Schema(description = "True until the initial resync has finished") boolean resyncPending,
            ArrayStrategies strategies,
            @Schema(description = "Bytes per second") ArraySpeedLimitsView speedLimits,
            @Schema(description = "Assembly state: desired and actual, with the reason when the array is not assembled")
            ObjectState state,
            @Schema(description = "The node whose instance assembles and changes the array; other nodes list it read-only")
            String node,
            Instant createdAt,
            @Schema(description = "What the members carry: 1.2 (md superblocks) or none", allowableValues = {"1.2", "none"})
            String metadata,
            @Schema(description = "The array uuid, as mdadm prints it; absent without metadata") String uuid,
            @Schema(description = "The superblocks' event count; absent while not assembled or without metadata")
            Long events,
            @Schema(description = "Where the members' data starts (md's data offset), bytes") Long dataOffsetBytes,
            @Schema(description = "The write-intent bitmap; absent without one") ArrayBitmap bitmap,
            @Schema(description = "Bytes recovery has copied onto members since the array started; a bitmap re-add "
                    + "copies only the dirty chunks") Long recoveredBytes,
            @Schema(description = "Devices that may join it now as a spare or a replacement: active, used by nothing, "
                    + "not the array itself nor built on it, large enough, with blocks no larger than its own; empty "
                    + "for levels without redundancy and while it is not assembled") List<String> joinCandidates) {
    }

    record ArrayBitmap(
            @Schema(description = "Bytes each bit stands for") long chunkBytes,
            @Schema(description = "Bits in all; absent while not assembled") Integer chunks,
            @Schema(description = "Bits set: chunks written recently or not on every member") Integer dirtyChunks,
            @Schema(description = "Chunks a resync or a bitmap re-add would copy") Integer neededChunks,
            @Schema(description = "Seconds the bitmap daemon sleeps between passes (mdadm's --delay); absent while "
                    + "not assembled") Integer delaySeconds) {
    }

    @Schema(description = "md's write-mostly flag of a member")
    record WriteMostly(
            @Schema(description = "true: raid1 reads avoid the member while another in-sync copy can serve them")
            @NotNull Boolean enabled) {
    }

    record ArraySpeedLimitsView(long min, long max) {
    }

    @Schema(description = "raid4/5/6's write journal")
    record ArrayJournal(
            @Schema(description = "The journal's block device") String device,
            @Schema(description = "Absent while not assembled") Long sizeBytes,
            @Schema(description = "Space holding records not yet checkpointed") Long usedBytes,
            @Schema(description = "Stripe writes logged since the array started") Long records,
            @Schema(description = "Times the members were flushed and the space reused") Long checkpoints,
            @Schema(description = "The journal failed a write or a checkpoint: the array refuses writes (reads go on) until it is assembled again") Boolean failed,
            @Schema(description = "A stripe write failed on the members after its record was logged (a member lost mid-write): "
                    + "the journal keeps every record from there on for the next assembly's replay and takes no checkpoint "
                    + "until then, so once it is full writes are refused (reads go on)") Boolean pinned) {
    }

    @Schema(description = "raid4/5/6's stripe cache, as md's sysfs shows it, and how writes went since the start")
    record ArrayStripeCache(
            @Schema(description = "Stripe heads the cache may hold (md's stripe_cache_size)") int size,
            @Schema(description = "Heads in use (md's stripe_cache_active); absent while not assembled") Integer active,
            @Schema(description = "Bytes of each member one stripe head covers") Integer stripeBytes,
            @Schema(description = "Stripe writes done by read-modify-write") Long rmwStripes,
            @Schema(description = "Stripe writes done by reconstruct-write that had to read") Long rcwStripes,
            @Schema(description = "Stripe writes that covered whole stripes and read nothing") Long fullStripeWrites,
            @Schema(description = "Requests that joined an earlier one's parity update") Long batchedWrites,
            @Schema(description = "Reads rebuilt from the other members") Long degradedReads) {
    }

    record ArrayMember(
            @Schema(description = "md's device number (order of joining); -1 for an empty slot or a member the live "
                    + "array does not have") int number,
            @Schema(description = "The raid slot it fills (or filled, for a failed or missing one); -1 for spares") int slot,
            @Schema(description = "Absent for an empty slot") String device,
            @Schema(allowableValues = {"active", "replacement", "spare", "none"}) String role,
            @Schema(allowableValues = {"in_sync", "rebuilding", "spare", "faulty", "removed", "missing"}) String state,
            @Schema(description = "mdadm's words", example = "active sync") String stateText,
            boolean replacement,
            @Schema(description = "Progress of a rebuilding member") long rebuiltBytes,
            @Schema(description = "Why a faulty or missing member is out") String faultReason,
            @Schema(description = "For a rebuilding member: bitmap (only the chunks the write-intent bitmap marks, a "
                    + "re-add) or full", allowableValues = {"bitmap", "full"}) String recovery,
            @Schema(description = "md's write-mostly: raid1 reads avoid this member while another copy can serve them")
            boolean writeMostly) {
    }

    record ArraySync(
            @Schema(allowableValues = {"idle", "resync", "recover", "check", "repair"}) String action,
            @Schema(description = "Held by a pause request") boolean paused,
            @Schema(description = "0-100") double percent,
            @Schema(description = "Array bytes (resync, check, repair) or member bytes (recovery) done") long doneBytes,
            long totalBytes,
            @Schema(description = "Recent speed, averaged over the last seconds") long bytesPerSecond,
            @Schema(description = "Seconds left at that speed; -1 if unknown") long etaSeconds,
            @Schema(description = "The member being rebuilt, for recovery") String target) {
    }
}
