package io.blockwork.array.web;

import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.Raid10Layout;
import io.blockwork.engine.md.metadata.BitmapSuperblock;
import io.blockwork.engine.md.metadata.Examination;
import io.blockwork.engine.md.metadata.Superblock;
import io.blockwork.array.app.ArrayAssemblyService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** {@code mdadm --examine} of any block device, as JSON with mdadm's field names. */
@RestController
@Tag(name = "Arrays")
class MdExamineController {

    private final ArrayAssemblyService arrays;

    MdExamineController(ArrayAssemblyService arrays) {
        this.arrays = arrays;
    }

    @GetMapping("/api/v1/devices/{name}/examine")
    @Operation(operationId = "examineDevice", summary = "Show a device's md superblock and bitmap (mdadm --examine, -X)",
            description = "Reads the v1.2 superblock 4 KiB into the device and the write-intent bitmap after it. A device "
                    + "without one answers with found false and the reason; a torn or corrupt one is shown with its "
                    + "checksum and the one its content gives, and usable false: assembly would refuse it.")
    Examine examine(@PathVariable String name) {
        return of(arrays.examine(name));
    }

    @Schema(description = "mdadm --examine as JSON")
    record Examine(
            String device,
            @Schema(description = "The device carries an md superblock (right magic, version and offset)") boolean found,
            @Schema(description = "Assembly would use it") boolean usable,
            @Schema(description = "Why it would not; absent when usable") String problem,
            @Schema(description = "The superblock; absent when none is found") ExamineSuperblock superblock,
            @Schema(description = "The write-intent bitmap (mdadm --examine-bitmap); absent without one") ExamineBitmap bitmap,
            @Schema(description = "Why the bitmap could not be read") String bitmapProblem) {
    }

    record ExamineSuperblock(
            @Schema(example = "a92b4efc") String magic,
            @Schema(example = "1.2") String version,
            @Schema(example = "0x1") String featureMap,
            @Schema(example = "3b5a6f1e:0c2d4e6f:8a9b0c1d:2e3f4a5b") String arrayUuid,
            String name,
            Instant creationTime,
            @Schema(example = "raid10") String raidLevel,
            int raidDevices,
            @Schema(description = "data_size") long availDevSizeSectors,
            @Schema(description = "The array's size the superblock implies (raid1, raid10)") Long arraySizeBytes,
            @Schema(description = "size: sectors of each member the array uses") long usedDevSizeSectors,
            long dataOffsetSectors,
            long superOffsetSectors,
            @Schema(description = "Present while the member is being rebuilt") Long recoveryOffsetSectors,
            @Schema(allowableValues = {"clean", "active"}) String state,
            String deviceUuid,
            @Schema(description = "Sectors from the superblock to the bitmap; absent without one") Integer internalBitmapSectors,
            Instant updateTime,
            @Schema(description = "Bad-block log entries reserved; 0 without one") int badBlockLogEntries,
            @Schema(example = "5a1c33e0") String checksum,
            boolean checksumCorrect,
            @Schema(description = "What the content gives") String expectedChecksum,
            long events,
            @Schema(description = "raid10: near=2, far=2, offset=2 ...") String layout,
            int layoutCode,
            @Schema(description = "Chunk (raid0/raid10), rounding (linear); 0 for raid1") long chunkSizeBytes,
            @Schema(example = "Active device 0") String deviceRole,
            int devNumber,
            @Schema(description = "A per slot: A active, R replacing, . missing", example = "AA") String arrayState) {
    }

    record ExamineBitmap(
            int version,
            String uuid,
            long events,
            long eventsCleared,
            @Schema(allowableValues = {"OK", "stale"}) String state,
            long chunkSizeBytes,
            int daemonSleepSeconds,
            long syncSizeSectors,
            long bits,
            long dirtyBits) {
    }

    static Examine of(Examination e) {
        Superblock sb = e.sb();
        ExamineSuperblock s = null;
        if (sb != null) {
            Superblock.Decoded d = e.superblock();
            String level = MdLevel.fromMdNumber(sb.level()).map(MdLevel::label).orElse("-unknown-");
            s = new ExamineSuperblock(String.format("%08x", Superblock.MAGIC), "1.2", "0x" + Integer.toHexString(sb.featureMap()),
                    sb.arrayUuid().toString(), sb.name(), sb.created(), level, sb.raidDisks(), sb.dataSize(), arraySize(sb),
                    sb.size(), sb.dataOffset(), sb.superOffset(),
                    sb.has(Superblock.FEATURE_RECOVERY_OFFSET) ? sb.recoveryOffset() : null, sb.clean() ? "clean" : "active",
                    sb.deviceUuid().toString(), sb.has(Superblock.FEATURE_BITMAP_OFFSET) ? sb.bitmapOffset() : null,
                    sb.updated(), sb.bblogSize() * 512 / 8, Integer.toHexString(d.storedChecksum()), d.checksumCorrect(),
                    Integer.toHexString(d.expectedChecksum()), sb.events(), layout(sb), sb.layout(),
                    (long) sb.chunkSectors() * 512, role(sb), sb.devNumber(), arrayState(sb));
        }
        BitmapSuperblock b = e.bitmap();
        ExamineBitmap bitmap = b == null ? null : new ExamineBitmap(b.version(), b.uuid().toString(), b.events(),
                b.eventsCleared(), b.stale() ? "stale" : "OK", b.chunkBytes(), b.daemonSleepSeconds(), b.syncSectors(),
                b.bits(), e.dirtyBits());
        return new Examine(e.device(), sb != null, e.usable(), e.problem(), s, bitmap, e.bitmapProblem());
    }

    /** As mdadm computes "Array Size": used size times data disks over copies. */
    private static Long arraySize(Superblock sb) {
        long bytes = sb.size() * 512;
        return switch (sb.level()) {
            case 1 -> bytes;
            case 10 -> bytes * sb.raidDisks() / Math.max(1, (sb.layout() & 0xff) * ((sb.layout() >> 8) & 0xff));
            default -> null;
        };
    }

    private static String layout(Superblock sb) {
        if (sb.level() != 10) {
            return null;
        }
        try {
            return Raid10Layout.fromCode(sb.layout()).describe();
        } catch (RuntimeException e) {
            return String.format("0x%x", sb.layout());
        }
    }

    /** mdadm's "Device Role". */
    private static String role(Superblock sb) {
        int role = sb.ownRole();
        if (role >= Superblock.ROLE_FAULTY) {
            return "spare";
        }
        if (role == Superblock.ROLE_JOURNAL) {
            return "Journal";
        }
        return (sb.has(Superblock.FEATURE_REPLACEMENT) ? "Replacement device " : "Active device ") + role;
    }

    /** mdadm's "Array State". */
    private static String arrayState(Superblock sb) {
        StringBuilder s = new StringBuilder();
        for (int slot = 0; slot < sb.raidDisks(); slot++) {
            int count = 0;
            for (int role : sb.roles()) {
                count += role == slot ? 1 : 0;
            }
            s.append(count == 2 && sb.level() > 0 ? 'R' : count == 1 ? 'A' : count == 0 ? '.' : '?');
        }
        return s.toString();
    }
}
