package io.blockwork.export.web;

import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceNames;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Instant;
import java.util.List;

/** The JSON shapes of the exports API. */
final class ExportBodies {

    private ExportBodies() {}

    @Schema(description = "A block device to offer to NBD clients")
    record CreateExport(
            @Schema(description = "What clients ask for (nbd://host:port/NAME); unique among exports. "
                    + "Defaults to the device's name", example = "d1", pattern = DeviceNames.PATTERN)
            @Pattern(regexp = DeviceNames.PATTERN, message = "must match " + DeviceNames.PATTERN)
            String name,
            @Schema(description = "The block device to export: a disk, array, mapped device, volume or snapshot", example = "d1")
            @NotNull
            String device,
            @Schema(description = "Refuse writes, trims and zeroing (EPERM) and advertise READ_ONLY; default false")
            Boolean readOnly,
            @Schema(description = "Write the device although an array or a mapped device uses it (they allow raw "
                    + "access; pools, snapshots and hidden devices never do); default false, and without it such a "
                    + "device is refused with 409 device-busy")
            Boolean raw,
            @Schema(description = "Shown by nbdinfo; at most 4096 bytes of UTF-8", example = "scratch disk")
            String description,
            @Schema(description = "optional (default): clients may use TLS (NBD_OPT_STARTTLS) or not; required: "
                    + "served over TLS only, so a plain-text client neither sees the export in a listing nor gets "
                    + "it (NBD_REP_ERR_TLS_REQD). Needs TLS configured on the server (blockwork.nbd.tls.bundle)",
                    allowableValues = {"optional", "required"}, example = "required")
            @Pattern(regexp = "optional|required", message = "must be optional or required")
            String tls,
            @Schema(description = "Client addresses that may see and use the export, as IPv4/IPv6 addresses or "
                    + "CIDR blocks (1 to 64); absent: any client that can reach the NBD port",
                    example = "[\"127.0.0.1\", \"10.20.0.0/16\"]")
            List<String> allowedClients) {
    }

    record Export(
            String name,
            String device,
            @Schema(allowableValues = {"disk", "array", "dm", "volume", "snapshot"}) String deviceKind,
            boolean readOnly,
            @Schema(description = "Writes a device that an array or mapped device uses, as it allows")
            boolean raw,
            String description,
            @Schema(description = "Where clients connect, e.g. nbd://127.0.0.1:10809/d1 (nbds://… for an export "
                    + "served over TLS only); absent while the export is not active",
                    example = "nbd://127.0.0.1:10809/d1")
            String uri,
            @Schema(description = "The URI over the Unix-domain socket (blockwork.nbd.unix-socket); absent when that "
                    + "is not configured or the export is not active (nbds+unix://… for an export served over TLS only)",
                    example = "nbd+unix:///d1?socket=/run/blockwork/nbd.sock")
            String unixUri,
            @Schema(allowableValues = {"optional", "required"}) String tls,
            @Schema(description = "Client address blocks (canonical CIDR) that may use the export; absent: any client")
            List<String> allowedClients,
            @Schema(description = "The export size clients see; absent while the export is not active")
            Long sizeBytes,
            ObjectState state,
            @Schema(description = "Connected NBD clients")
            List<ExportClient> clients,
            @Schema(description = "The node whose instance assembles and changes it; other nodes list it read-only")
            String node,
            Instant createdAt) {
    }

    record ExportClient(
            @Schema(description = "The server's number for the connection") long id,
            @Schema(example = "127.0.0.1:40112") String remoteAddress,
            Instant connectedAt,
            @Schema(description = "Requests answered so far") long requestsServed,
            @Schema(description = "Memory its requests in flight hold now") long inFlightBytes,
            @Schema(description = "Connected over TLS") boolean tls) {
    }
}
