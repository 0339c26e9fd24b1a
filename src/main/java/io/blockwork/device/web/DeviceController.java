package io.blockwork.device.web;

import io.blockwork.engine.block.IoCounters;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.event.Health;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/devices")
@Tag(name = "Devices", description = "Every block device, whatever its kind, with its request counters")
class DeviceController {

    private final DeviceRegistry registry;

    DeviceController(DeviceRegistry registry) {
        this.registry = registry;
    }

    @GetMapping
    @Operation(summary = "List block devices", description = "Disks, arrays, mapped devices and volumes, by name.")
    List<Device> list() {
        return registry.list().stream().map(Device::of).toList();
    }

    @GetMapping("/{name}")
    @Operation(summary = "Show a block device")
    Device get(@PathVariable String name) {
        return Device.of(registry.require(name));
    }

    record Device(
            String name,
            @Schema(allowableValues = {"disk", "array", "dm", "volume", "snapshot", "hidden"}) String kind,
            @Schema(description = "Absent while the device is not active") Long sizeBytes,
            @Schema(description = "Absent while the device is not active") Integer logicalBlockSize,
            @Schema(description = "Absent while the device is not active") DeviceStats stats,
            ObjectState state,
            @Schema(description = "Health in one word and why (ok, degraded, recovering, resyncing, checking, suspended, "
                    + "faulty, invalid, overflow, failed, blocked); the reason is absent when ok") Health health,
            @Schema(description = "Objects that use this device, e.g. \"array md0\"") List<String> holders) {

        static Device of(RegisteredDevice e) {
            List<String> holders = e.holders().stream().map(Holder::toString).sorted().toList();
            if (!e.live()) {
                return new Device(e.name(), e.kind().label(), null, null, null, e.state(), Health.of(e), holders);
            }
            return new Device(e.name(), e.kind().label(), e.device().sizeBytes(),
                    e.device().limits().logicalBlockSize(), DeviceStats.of(e.device().counters()), e.state(), Health.of(e), holders);
        }
    }

    record DeviceStats(long reads, long writes, long flushes, long discards, long readBytes, long writtenBytes, long errors) {
        static DeviceStats of(IoCounters c) {
            return new DeviceStats(c.reads(), c.writes(), c.flushes(), c.discards(), c.readBytes(), c.writtenBytes(), c.errors());
        }
    }
}
