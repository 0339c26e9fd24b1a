package io.blockwork.system.web;

import io.blockwork.shared.assembly.AssemblyReport;
import io.blockwork.shared.assembly.StartupAssembler;
import io.blockwork.shared.device.DeviceIoService;
import io.blockwork.export.app.NbdServerLifecycle;
import io.blockwork.shared.node.NodeLease;
import io.blockwork.shared.node.NodeScope;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.blockwork.engine.md.parity.ParitySelection;
import java.time.Instant;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.info.BuildProperties;
import org.springframework.security.core.Authentication;
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
    private final NodeLease lease;

    SystemController(ObjectProvider<BuildProperties> build, StartupAssembler assembler, NbdServerLifecycle nbd,
                     NodeScope node, NodeLease lease) {
        BuildProperties b = build.getIfAvailable();
        // Without build-info (a run from an IDE that skipped the Maven goal) the version is unknown.
        this.info = new SystemInfo("blockwork", b == null ? "unknown" : b.getVersion(),
                b == null ? null : b.getTime(), Runtime.version().toString(), DeviceIoService.MAX_TRANSFER_BYTES,
                node.localNode(), null, null);
        // The parity benchmark starts with the service (the kernel's raid6 algorithm selection at boot).
        ParitySelection.start();
        this.assembler = assembler;
        this.nbd = nbd;
        this.lease = lease;
    }

    @GetMapping
    @Operation(summary = "Version, limits, the NBD server's address and the parity algorithms chosen at start-up")
    SystemInfo info() {
        return info.withNbd(nbd.endpoint().map(e -> new NbdServerInfo(e.address(), e.port(), nbd.tlsEnabled(),
                nbd.tlsVerifiesClients())).orElse(null))
                .withParity(ParityInfo.of(ParitySelection.selection()));
    }

    @GetMapping("/user")
    @Operation(summary = "Who is signed in and whether they may change anything",
            description = "The dashboard asks this once after signing in, to show the viewer's pages read-only.")
    SignedInUser user(Authentication authentication) {
        boolean admin = authentication.getAuthorities().stream().anyMatch(a -> "ROLE_ADMIN".equals(a.getAuthority()));
        return new SignedInUser(authentication.getName(), admin ? "admin" : "viewer", !admin);
    }

    record SignedInUser(String name, @Schema(allowableValues = {"admin", "viewer"}) String role, boolean readOnly) {}

    @GetMapping("/assembly")
    @Operation(summary = "What start-up assembly rebuilt",
            description = "Each configured object in assembly order, with desired and actual state and why they differ.")
    AssemblyReport assembly() {
        return assembler.report();
    }

    @GetMapping("/nodes")
    @Operation(summary = "The nodes sharing this configuration database",
            description = "One entry per node name that ever ran on the database: where its instance runs, its last "
                    + "heartbeat, whether it stopped cleanly, and which one is this instance (self).")
    List<NodeLease.NodeRow> nodes() {
        return lease.nodes();
    }

    record SystemInfo(String name, String version, Instant buildTime, String java, int maxTransferBytes,
                      @Schema(description = "This instance's node name (blockwork.node-name; default the host name)")
                      String node,
                      @Schema(description = "Where the NBD server listens; absent while it is stopped") NbdServerInfo nbd,
                      @Schema(description = "raid4/5/6 parity code chosen by a benchmark at start-up") ParityInfo parity) {
        SystemInfo withNbd(NbdServerInfo n) {
            return new SystemInfo(name, version, buildTime, java, maxTransferBytes, node, n, parity);
        }

        SystemInfo withParity(ParityInfo p) {
            return new SystemInfo(name, version, buildTime, java, maxTransferBytes, node, nbd, p);
        }
    }

    @Schema(description = "The parity algorithms raid4/5/6 use, chosen as the kernel's raid6 algorithm selection "
            + "does: each candidate computes XOR and P+Q over 4 x 64 KiB for a moment (per CPU second, on a thread "
            + "beside the service's start) and the fastest wins")
    record ParityInfo(
            @Schema(description = "raid4/5's XOR", example = "vector-256") String xor,
            @Schema(description = "Data MB/s (10^6 bytes) of the chosen XOR on one core") long xorMBps,
            @Schema(description = "raid6's P+Q syndrome (GF(2^8), generator 2, polynomial 0x11d)", example = "vector-256")
            String raid6,
            @Schema(description = "Data MB/s of the chosen P+Q generation on one core") long raid6MBps,
            @Schema(description = "True if the JVM has the Vector API (--add-modules jdk.incubator.vector)")
            boolean vectorAvailable,
            @Schema(description = "True while the start-up benchmark still runs: until then the scalar code is used")
            boolean measuring,
            @Schema(description = "Every candidate's figures") List<ParityCandidate> candidates) {
        static ParityInfo of(ParitySelection.Selection s) {
            return new ParityInfo(s.xorAlgorithm(), Math.round(s.xorMBps()), s.raid6Algorithm(), Math.round(s.raid6MBps()),
                    s.vectorAvailable(), s.measuring(), s.candidates().stream()
                    .map(c -> new ParityCandidate(c.name(), Math.round(c.xorMBps()), Math.round(c.raid6MBps()))).toList());
        }
    }

    record ParityCandidate(String name, long xorMBps, long raid6MBps) {}

    record NbdServerInfo(@Schema(description = "As configured (blockwork.nbd.address)", example = "127.0.0.1") String address,
               @Schema(description = "The bound port (the real one when configured as 0)", example = "10809") int port,
               @Schema(description = "TLS is offered (NBD_OPT_STARTTLS; nbds:// URIs)") boolean tls,
               @Schema(description = "TLS clients must show a certificate from a trusted CA") boolean tlsVerifiesClients) {}
}
