package io.blockwork.dm.web;

import io.blockwork.engine.block.BatchDispatch;
import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.EmptyFlush;
import io.blockwork.engine.dm.TargetStatus;
import io.blockwork.engine.dm.snapshot.SnapshotLocking;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.dm.app.DmView;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** The JSON shapes of the device-mapper API. */
final class DmBodies {

    private DmBodies() {}

    @Schema(description = "A new mapped device")
    record CreateDmDevice(
            @Schema(description = "Unique among all block devices", example = "lin0", pattern = DeviceNames.PATTERN)
            @NotNull @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String name,
            @Schema(description = "Optional, unique among mapped devices; at most 128 characters, no white space",
                    example = "LVM-vg0-lin0")
            String uuid,
            @Schema(description = "The table to make live. Absent: a device without a table (size 0) until one is "
                    + "loaded and resumed, like `dmsetup create --notable`")
            TableBody table,
            @Valid DmStrategies strategies) {
    }

    @Schema(description = "A table for the inactive slot")
    record DmLoadTable(@NotNull TableBody table) {
    }

    @Schema(description = "Selectable mechanisms, for before/after comparisons")
    record DmStrategies(
            @Schema(description = "How an empty flush fans out: per-device (default): once to each distinct "
                    + "underlying device when every target lets flushes bypass it (linear, striped); per-target: "
                    + "through every target, as before Linux 6.11", allowableValues = {"per-device", "per-target"})
            @Pattern(regexp = "per-device|per-target", message = "must be per-device or per-target")
            String flush,
            @Schema(description = "How mirror targets release their batches of bios: explicit (default): the "
                    + "mirror's worker unplugs after each batch; timer: leg queues wait for the 3 ms unplug timer, "
                    + "as kmirrord's did before it learnt to unplug", allowableValues = {"explicit", "timer"})
            @Pattern(regexp = "explicit|timer", message = "must be explicit or timer")
            String batchDispatch,
            @Schema(description = "How snapshot targets lock: fine (default): an rw lock for snapshot state, "
                    + "per-bucket exception-table locks and an allocation lock; global: one lock across the whole "
                    + "map path, as before Linux 5.2", allowableValues = {"fine", "global"})
            @Pattern(regexp = "fine|global", message = "must be fine or global")
            String snapshotLocking) {

        static DmStrategies of(io.blockwork.dm.app.DmStrategies s) {
            return new DmStrategies(s.emptyFlush().label(), s.batchDispatch().label(), s.snapshotLocking().label());
        }

        /** The service's choices; what is absent takes its default. */
        io.blockwork.dm.app.DmStrategies choices() {
            return new io.blockwork.dm.app.DmStrategies(flush == null ? null : EmptyFlush.fromLabel(flush),
                    batchDispatch == null ? null : BatchDispatch.Kind.fromLabel(batchDispatch),
                    snapshotLocking == null ? null : SnapshotLocking.Kind.fromLabel(snapshotLocking));
        }
    }

    @Schema(description = "A message for the target covering a sector, as `dmsetup message`")
    record DmMessage(
            @Schema(description = "A sector the target covers", example = "0") @NotNull @PositiveOrZero Long sector,
            @Schema(description = "The message: words separated by spaces") @NotNull String message) {
    }

    record DmMessageReply(@Schema(description = "The target's reply; empty for none") String reply) {
    }

    @Schema(description = "A new name for the device")
    record DmRename(
            @Schema(example = "lin1", pattern = DeviceNames.PATTERN)
            @NotNull @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String newName) {
    }

    record DmDevice(
            String name,
            @Schema(description = "Absent when it has none") String uuid,
            @Schema(description = "`dmsetup info`; absent while the device is not active") DmInfo info,
            @Schema(description = "The live table as `dmsetup table` prints it; empty for none",
                    example = "0 2048 linear d1 0\n")
            String table,
            @Schema(description = "The table loaded and waiting for resume; absent for none") String inactiveTable,
            @Schema(description = "The live table's status lines (`dmsetup status`); absent while not active")
            List<DmTargetStatus> status,
            DmStrategies strategies,
            @Schema(description = "Whether start-up assembled it (desired versus actual)") ObjectState state,
            @Schema(description = "The node whose instance assembles and changes it; other nodes list it read-only")
            String node,
            Instant createdAt) {

        static DmDevice of(DmView v) {
            return new DmDevice(v.name(), v.uuid(), v.info() == null ? null : DmInfo.of(v.info()), v.table(),
                    v.inactiveTable(), v.status() == null ? null : v.status().stream().map(DmTargetStatus::of).toList(),
                    DmStrategies.of(v.strategies()), v.state(), v.node(), v.createdAt());
        }
    }

    record DmInfo(
            @Schema(allowableValues = {"active", "suspended"}) String state,
            @Schema(description = "Users that have it open: mapped devices whose tables use it") int openCount,
            @Schema(description = "Goes up on every table swap and target event") long eventNumber,
            @Schema(description = "A table is live") boolean liveTable,
            @Schema(description = "A table is loaded and waits for resume") boolean inactiveTable,
            int targetCount,
            long sizeBytes) {

        static DmInfo of(DeviceInfo i) {
            return new DmInfo(i.state().name().toLowerCase(Locale.ROOT), i.openCount(), i.eventNumber(), i.liveTable(),
                    i.inactiveTable(), i.targetCount(), i.sizeSectors() << 9);
        }
    }

    record DmTargetStatus(long start, long length, String target,
                  @Schema(description = "The target's INFO status (may be empty)") String status) {
        static DmTargetStatus of(TargetStatus s) {
            return new DmTargetStatus(s.start(), s.length(), s.type(), s.status());
        }
    }
}
