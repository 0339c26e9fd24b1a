package io.blockwork.dm.web;

import io.blockwork.shared.ensure.CreatesOrConfirms;
import io.blockwork.shared.ensure.Ensure;
import io.blockwork.dm.web.DmBodies.CreateDmDevice;
import io.blockwork.dm.web.DmBodies.DmDevice;
import io.blockwork.dm.web.DmBodies.DmLoadTable;
import io.blockwork.dm.web.DmBodies.DmMessage;
import io.blockwork.dm.web.DmBodies.DmMessageReply;
import io.blockwork.dm.web.DmBodies.DmRename;
import io.blockwork.dm.app.DmCreate;
import io.blockwork.dm.app.DmService;
import io.blockwork.dm.app.DmView;
import io.blockwork.dm.app.TableInput;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import java.util.List;
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
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/dm/devices")
@Tag(name = "Device-mapper", description = "Mapped devices with dmsetup's lifecycle: tables of linear, striped, zero, "
        + "error, delay, flakey, mirror, snapshot-origin, snapshot, snapshot-merge, log-writes, thin-pool and thin targets over any block device, by name. Tables are dmsetup text (sectors of 512 "
        + "bytes) or lists of target objects; a refused table answers 400 invalid-table with its `line` and changes "
        + "nothing.")
class DmController {

    private static final String BASE = "/api/v1/dm/devices/";

    private final DmService dm;

    DmController(DmService dm) {
        this.dm = dm;
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Create a mapped device", description = "Builds the table and makes it live (dmsetup create). "
            + "A repeat (the same uuid, table and strategies) answers 200 with the device; others are 409 name-taken "
            + "naming them in differs.")
    @CreatesOrConfirms
    ResponseEntity<DmDevice> createDm(@Valid @RequestBody CreateDmDevice body) {
        DmCreate create = new DmCreate(body.name(), body.uuid(),
                body.table() == null ? null : body.table().input(),
                body.strategies() == null ? null : body.strategies().choices());
        return new Ensure<>(() -> dm.get(body.name()), create::differencesFrom, () -> DmDevice.of(dm.create(create)),
                DmDevice::of).answer(Ensure.location(BASE + "{name}", body.name()));
    }

    @PutMapping(path = "/{name}", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Create or confirm a mapped device", description = Ensure.PUT_SUMMARY)
    @CreatesOrConfirms
    ResponseEntity<DmDevice> putDm(@PathVariable String name, @Valid @RequestBody CreateDmDevice body) {
        Ensure.samePathName(name, body.name(), "name");
        return createDm(body);
    }

    @GetMapping
    @Operation(summary = "List mapped devices", description = "Every configured mapped device, active or not, by name.")
    List<DmDevice> listDm() {
        return dm.list().stream().map(DmDevice::of).toList();
    }

    @GetMapping("/{name}")
    @Operation(summary = "Show a mapped device", description = "dmsetup info, its tables and the live table's status.")
    DmDevice getDm(@PathVariable String name) {
        return DmDevice.of(dm.get(name));
    }

    @GetMapping(path = "/{name}/table", produces = MediaType.TEXT_PLAIN_VALUE)
    @Operation(summary = "The table as dmsetup table prints it",
            description = "One line per target: `<start> <length> <target> <args>`, devices by name.")
    String dmTable(@PathVariable String name,
                 @Parameter(description = "The inactive table instead (dmsetup table --inactive)")
                 @RequestParam(defaultValue = "false") boolean inactive) {
        return dm.tableText(name, inactive);
    }

    @GetMapping(path = "/{name}/status", produces = MediaType.TEXT_PLAIN_VALUE)
    @Operation(summary = "The live table's status as dmsetup status prints it",
            description = "One line per target: `<start> <length> <target> <status>`.")
    String dmStatus(@PathVariable String name) {
        return dm.statusText(name);
    }

    @PutMapping(path = "/{name}/table", consumes = MediaType.TEXT_PLAIN_VALUE)
    @Operation(summary = "Load a table into the inactive slot",
            description = "dmsetup load: the body is table text (text/plain) or {\"table\": …} (JSON). The live "
                    + "table is untouched until resume; a table already loaded is replaced.")
    DmDevice loadDmTableText(@PathVariable String name, @RequestBody String text) {
        return DmDevice.of(dm.load(name, new TableInput.Text(text)));
    }

    @PutMapping(path = "/{name}/table", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Load a table into the inactive slot",
            description = "dmsetup load: the body is table text (text/plain) or {\"table\": …} (JSON). The live "
                    + "table is untouched until resume; a table already loaded is replaced.")
    DmDevice loadDmTable(@PathVariable String name, @Valid @RequestBody DmLoadTable body) {
        return DmDevice.of(dm.load(name, body.table().input()));
    }

    @DeleteMapping("/{name}/table/inactive")
    @Operation(summary = "Drop the inactive table", description = "dmsetup clear; without one it changes nothing.")
    DmDevice clearDmTable(@PathVariable String name) {
        return DmDevice.of(dm.clear(name));
    }

    @PostMapping("/{name}/suspend")
    @Operation(summary = "Suspend", description = "New I/O is held until resume; waits for the I/O in flight. "
            + "409 invalid-state if it is suspended already.")
    DmDevice suspendDm(@PathVariable String name,
                     @Parameter(description = "dmsetup suspend --noflush: targets may push I/O back to be mapped "
                             + "again after resume") @RequestParam(defaultValue = "false") boolean noflush) {
        return DmDevice.of(dm.suspend(name, noflush));
    }

    @PostMapping("/{name}/resume")
    @Operation(summary = "Resume", description = "Swaps in the inactive table if there is one (suspending first if "
            + "needed), then lets held I/O through. 409 invalid-state for an active device with no table loaded.")
    DmDevice resumeDm(@PathVariable String name) {
        return DmDevice.of(dm.resume(name));
    }

    @PostMapping(path = "/{name}/message", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Send a message to a target", description = "dmsetup message to the live target covering "
            + "the sector; 409 message-refused if there is none or it does not take the message.")
    DmMessageReply messageDm(@PathVariable String name, @Valid @RequestBody DmMessage body) {
        return new DmMessageReply(dm.message(name, body.sector(), body.message()));
    }

    @PostMapping(path = "/{name}/rename", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "DmRename", description = "dmsetup rename. Mapped devices stacked on it follow; a device "
            + "used by an object of another kind is not renamed (409 device-busy).")
    ResponseEntity<DmDevice> renameDm(@PathVariable String name, @Valid @RequestBody DmRename body) {
        DmView renamed = dm.rename(name, body.newName());
        return ResponseEntity.ok().location(Ensure.location(BASE + "{name}", renamed.name())).body(DmDevice.of(renamed));
    }

    @DeleteMapping("/{name}")
    @Operation(summary = "Remove a mapped device", description = "dmsetup remove: refused with 409 device-busy while "
            + "it is open or used by another object. With force=true its NBD exports are removed with it (their "
            + "clients are disconnected) and an error table is swapped in first, so I/O still coming fails instead of "
            + "hanging; mapped devices or arrays built on it still refuse it.")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void deleteDm(@PathVariable String name,
                  @Parameter(description = "Also remove its exports; swap in an error table first")
                  @RequestParam(defaultValue = "false") boolean force) {
        dm.delete(name, force);
    }
}
