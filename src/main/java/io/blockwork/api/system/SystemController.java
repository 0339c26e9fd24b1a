package io.blockwork.api.system;

import io.blockwork.service.assembly.AssemblyReport;
import io.blockwork.service.assembly.StartupAssembler;
import io.blockwork.service.device.DeviceIoService;
import io.blockwork.service.export.NbdServerLifecycle;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
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
    private final NbdServerLifecycle nbd;

    SystemController(ObjectProvider<BuildProperties> build, StartupAssembler assembler, NbdServerLifecycle nbd) {
        BuildProperties b = build.getIfAvailable();
        // Without build-info (a run from an IDE that skipped the Maven goal) the version is unknown.
        this.info = new SystemInfo("blockwork", b == null ? "unknown" : b.getVersion(),
                b == null ? null : b.getTime(), Runtime.version().toString(), DeviceIoService.MAX_TRANSFER_BYTES, null);
        this.assembler = assembler;
        this.nbd = nbd;
    }

    @GetMapping
    @Operation(summary = "Version, limits and the NBD server's address")
    SystemInfo info() {
        return info.withNbd(nbd.endpoint().map(e -> new NbdServerInfo(e.address(), e.port(), nbd.tlsEnabled(),
                nbd.tlsVerifiesClients())).orElse(null));
    }

    @GetMapping("/assembly")
    @Operation(summary = "What start-up assembly rebuilt",
            description = "Each configured object in assembly order, with desired and actual state and why they differ.")
    AssemblyReport assembly() {
        return assembler.report();
    }

    record SystemInfo(String name, String version, Instant buildTime, String java, int maxTransferBytes,
                      @Schema(description = "Where the NBD server listens; absent while it is stopped") NbdServerInfo nbd) {
        SystemInfo withNbd(NbdServerInfo n) {
            return new SystemInfo(name, version, buildTime, java, maxTransferBytes, n);
        }
    }

    record NbdServerInfo(@Schema(description = "As configured (blockwork.nbd.address)", example = "127.0.0.1") String address,
               @Schema(description = "The bound port (the real one when configured as 0)", example = "10809") int port,
               @Schema(description = "TLS is offered (NBD_OPT_STARTTLS; nbds:// URIs)") boolean tls,
               @Schema(description = "TLS clients must show a certificate from a trusted CA") boolean tlsVerifiesClients) {}
}
