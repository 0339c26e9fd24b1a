package io.blockwork.export.web;

import io.blockwork.shared.ensure.CreatesOrConfirms;
import io.blockwork.shared.ensure.Ensure;
import io.blockwork.export.web.ExportBodies.CreateExport;
import io.blockwork.export.app.ExportService;
import io.blockwork.export.app.ExportSpec;
import io.blockwork.export.app.ExportView;
import io.blockwork.export.app.NbdEndpoint;
import io.blockwork.export.app.NbdServerLifecycle;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/exports")
@Tag(name = "Exports", description = "Block devices offered to NBD clients (qemu, nbdinfo, nbdcopy, fio, nbd-client)")
class ExportController {

    private final ExportService exports;
    private final NbdServerLifecycle nbd;

    ExportController(ExportService exports, NbdServerLifecycle nbd) {
        this.exports = exports;
        this.nbd = nbd;
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Export a block device over NBD",
            description = "The export holds its device: deleting the device is refused (409 device-busy) until the "
                    + "export is deleted, or done with force=true, which removes the export too. A device an array, "
                    + "pool, snapshot or mapped device uses refuses a writable export (409 device-busy naming the "
                    + "holder) unless raw=true and the holder allows raw access (arrays and mapped devices do); "
                    + "hidden devices refuse every export. NBD has no passwords: tls and allowedClients decide who "
                    + "may reach it (docs/guide/nbd-security.md). A repeat (the same settings) answers 200 with the export; other "
                    + "settings are 409 name-taken naming them in differs.")
    @CreatesOrConfirms
    ResponseEntity<ExportBodies.Export> create(@Valid @RequestBody CreateExport body, HttpServletRequest request) {
        return ensure(body.name(), body, request);
    }

    @PutMapping(path = "/{name}", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Create or confirm an export", description = Ensure.PUT_SUMMARY)
    @CreatesOrConfirms
    ResponseEntity<ExportBodies.Export> put(@PathVariable String name, @Valid @RequestBody CreateExport body,
                                            HttpServletRequest request) {
        Ensure.samePathName(name, body.name(), "name");
        return ensure(name, body, request);
    }

    private ResponseEntity<ExportBodies.Export> ensure(String name, CreateExport body, HttpServletRequest request) {
        ExportSpec spec = new ExportSpec(name, body.device(),
                Boolean.TRUE.equals(body.readOnly()), Boolean.TRUE.equals(body.raw()), body.description(),
                "required".equals(body.tls()), ExportSpec.addressRanges(body.allowedClients()));
        return new Ensure<>(() -> exports.get(spec.name()), spec::differencesFrom,
                () -> toBody(exports.create(spec), nbd.endpoint(), nbd.unixSocket(), request),
                (ExportView v) -> toBody(v, nbd.endpoint(), nbd.unixSocket(), request))
                .answer(Ensure.location("/api/v1/exports/{name}", spec.name()));
    }

    @GetMapping
    @Operation(summary = "List exports", description = "Every configured export, active or not, by name, with its "
            + "NBD URI and connected clients.")
    List<ExportBodies.Export> list(HttpServletRequest request) {
        Optional<NbdEndpoint> endpoint = nbd.endpoint();
        Optional<Path> unix = nbd.unixSocket();
        return exports.list().stream().map(v -> toBody(v, endpoint, unix, request)).toList();
    }

    @GetMapping("/{name}")
    @Operation(summary = "Show an export")
    ExportBodies.Export get(@PathVariable String name, HttpServletRequest request) {
        return toBody(exports.get(name), nbd.endpoint(), nbd.unixSocket(), request);
    }

    @DeleteMapping("/{name}")
    @Operation(summary = "Delete an export", description = "New clients are refused at once; connected clients get "
            + "answers to their requests in flight, then are disconnected. The device is untouched.")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void delete(@PathVariable String name) {
        exports.delete(name);
    }

    private static ExportBodies.Export toBody(ExportView v, Optional<NbdEndpoint> endpoint, Optional<Path> unix,
                                              HttpServletRequest request) {
        String uri = v.state().live()
                ? endpoint.map(e -> e.uri(v.name(), request.getServerName(), v.tlsRequired())).orElse(null) : null;
        String unixUri = v.state().live()
                ? unix.map(p -> NbdEndpoint.unixUri(v.name(), p, v.tlsRequired())).orElse(null) : null;
        List<ExportBodies.ExportClient> clients = v.clients().stream().map(c -> new ExportBodies.ExportClient(c.id(),
                c.remoteAddress(), c.connectedAt(), c.requestsServed(), c.inFlightBytes(), c.tls())).toList();
        return new ExportBodies.Export(v.name(), v.device(), v.deviceKind(), v.readOnly(), v.raw(), v.description(), uri,
                unixUri,
                v.tlsRequired() ? "required" : "optional", v.allowedClients(), v.sizeBytes(), v.state(), clients,
                v.node(), v.createdAt());
    }
}
