package io.blockwork.api.system;

import io.blockwork.service.assembly.AssemblyReport;
import io.blockwork.service.assembly.StartupAssembler;
import io.blockwork.service.device.DeviceIoService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.info.BuildProperties;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/system")
@Tag(name = "System", description = "The service itself")
class SystemController {

    private final SystemInfo info;
    private final StartupAssembler assembler;

    SystemController(ObjectProvider<BuildProperties> build, StartupAssembler assembler) {
        BuildProperties b = build.getIfAvailable();
        // Without build-info (a run from an IDE that skipped the Maven goal) the version is unknown.
        this.info = new SystemInfo("blockwork", b == null ? "unknown" : b.getVersion(),
                b == null ? null : b.getTime(), Runtime.version().toString(), DeviceIoService.MAX_TRANSFER_BYTES);
        this.assembler = assembler;
    }

    @GetMapping
    @Operation(summary = "Version and limits")
    SystemInfo info() {
        return info;
    }

    @GetMapping("/assembly")
    @Operation(summary = "What start-up assembly rebuilt",
            description = "Each configured object in assembly order, with desired and actual state and why they differ.")
    AssemblyReport assembly() {
        return assembler.report();
    }

    record SystemInfo(String name, String version, Instant buildTime, String java, int maxTransferBytes) {}
}
